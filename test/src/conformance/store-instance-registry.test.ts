import { it } from 'node:test';
import assert from 'node:assert/strict';
import { describeStore, later } from './store-fixture.js';

const LIVE_MS = 60_000;

describeStore('the instance registry', (t) => {
  it('records version, queues with caps and slots, and reads them back with a live flag', async () => {
    const now = await t.store.now();
    await t.store.registerInstance(
      {
        id: 'b',
        host: 'h1',
        pid: 7,
        kinds: ['x', 'y'],
        version: '1.2.3',
        queues: [{ name: 'default' }, { name: 'emails', cap: 4 }],
        slots: { cpu: 8, async: 100 },
      },
      now,
    );
    await t.store.registerInstance({ id: 'a', host: 'h2', pid: 8, kinds: [] }, later(now, -LIVE_MS - 1));
    const all = await t.store.listInstances({ liveWithinMs: LIVE_MS, now });
    assert.deepEqual(all, [
      {
        id: 'a',
        host: 'h2',
        pid: 8,
        version: null,
        kinds: [],
        queues: [{ name: '*' }],
        slots: {},
        startedAt: later(now, -LIVE_MS - 1),
        lastSeenAt: later(now, -LIVE_MS - 1),
        live: false,
      },
      {
        id: 'b',
        host: 'h1',
        pid: 7,
        version: '1.2.3',
        kinds: ['x', 'y'],
        queues: [{ name: 'default' }, { name: 'emails', cap: 4 }],
        slots: { cpu: 8, async: 100 },
        startedAt: now,
        lastSeenAt: now,
        live: true,
      },
    ]);
    const live = await t.store.listInstances({ liveWithinMs: LIVE_MS, liveOnly: true, now });
    assert.deepEqual(
      live.map((i) => i.id),
      ['b'],
    );
  });

  it('keeps started_at on re-registration and moves last_seen_at on a touch', async () => {
    const now = await t.store.now();
    await t.store.registerInstance({ id: 'i', host: 'h', pid: 1, kinds: [] }, now);
    await t.store.registerInstance(
      { id: 'i', host: 'h', pid: 1, kinds: ['k'], version: '2' },
      later(now, 1000),
    );
    await t.store.touchInstance('i', later(now, 5000));
    const [row] = await t.store.listInstances({ liveWithinMs: LIVE_MS, now: later(now, 5000) });
    assert.equal(row?.startedAt.getTime(), now.getTime());
    assert.equal(row?.lastSeenAt.getTime(), later(now, 5000).getTime());
    assert.equal(row?.version, '2');
    assert.deepEqual(row?.kinds, ['k']);
  });

  it('prunes only the rows not seen within the TTL', async () => {
    const now = await t.store.now();
    await t.store.registerInstance({ id: 'dead', host: 'h', pid: 1, kinds: [] }, later(now, -300_001));
    await t.store.registerInstance({ id: 'late', host: 'h', pid: 2, kinds: [] }, later(now, -299_000));
    await t.store.registerInstance({ id: 'live', host: 'h', pid: 3, kinds: [] }, now);
    assert.equal(await t.store.pruneInstances(300_000, now), 1);
    assert.equal(await t.store.pruneInstances(300_000, now), 0);
    const ids = (await t.store.listInstances({ liveWithinMs: LIVE_MS, now })).map((i) => i.id);
    assert.deepEqual(ids, ['late', 'live']);
  });
});

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { rawQuery } from '../helpers/index.js';
import { describeStore, later } from './store-fixture.js';

const GRACE_MS = 60_000;
const TTL_MS = 30_000;

describeStore('instances and unhandled kinds', (t) => {
  const fail = (now: Date) => t.store.failUnhandledKinds({ graceMs: GRACE_MS, instanceTtlMs: TTL_MS, now });

  it('registers, refreshes and removes an instance', async () => {
    const now = await t.store.now();
    await t.store.registerInstance({ id: 'i1', host: 'h', pid: 42, kinds: ['a', 'b'] }, now);
    await t.store.registerInstance({ id: 'i1', host: 'h2', pid: 43, kinds: ['c'] }, now);
    assert.equal(await t.store.touchInstance('i1', later(now, 1000)), true);
    const rows = await rawQuery<{ host: string; pid: number }>(t.db, 'SELECT host, pid FROM nudge_instances');
    assert.deepEqual(rows, [{ host: 'h2', pid: 43 }]);
    await t.store.removeInstance('i1');
    assert.equal(await t.store.touchInstance('i1'), false);
  });

  it('fails a job due past the grace whose kind no live instance handles, naming the kind', async () => {
    const now = await t.store.now();
    const [orphan, handled, fresh] = await t.store.enqueueMany([
      { kind: 'gone', runAt: later(now, -GRACE_MS - 1000) },
      { kind: 'a', runAt: later(now, -GRACE_MS - 1000) },
      { kind: 'gone' },
    ]);
    await t.store.registerInstance({ id: 'live', host: 'h', pid: 1, kinds: ['a', 'b'] }, now);
    await t.store.registerInstance(
      { id: 'dead', host: 'h', pid: 2, kinds: ['gone'] },
      later(now, -TTL_MS - 1000),
    );
    assert.deepEqual(await fail(now), { failed: 1, kinds: ['gone'] });
    const row = await t.store.getJob(orphan?.id ?? -1);
    assert.equal(row?.status, 'FAILED');
    assert.equal(row?.finishedAt?.getTime(), now.getTime());
    assert.match(
      row?.lastError ?? '',
      /no running instance has a handler for kind "gone" \(kinds handled now: a, b\)/,
    );
    assert.deepEqual(
      row?.errors,
      [{ attempt: 1, at: now, error: row?.lastError, instance: null }],
      'recorded as the attempt that could not start',
    );
    assert.equal((await t.store.getJob(handled?.id ?? -1))?.status, 'PENDING');
    assert.equal((await t.store.getJob(fresh?.id ?? -1))?.status, 'PENDING', 'still within its grace');
  });

  it('spares a kind that a live instance handles, however long it waited', async () => {
    const now = await t.store.now();
    await t.store.enqueue({ kind: 'slow', runAt: later(now, -10 * GRACE_MS) });
    await t.store.registerInstance({ id: 'a', host: 'h', pid: 1, kinds: ['x'] }, now);
    await t.store.registerInstance(
      { id: 'b', host: 'h', pid: 2, kinds: ['slow'] },
      later(now, -TTL_MS + 1000),
    );
    assert.deepEqual(await fail(now), { failed: 0, kinds: [] });
  });
});

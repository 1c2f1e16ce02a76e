import { it } from 'node:test';
import assert from 'node:assert/strict';
import { describeEngine } from '../helpers/index.js';

describeEngine('the engine in the instance registry', (t) => {
  it('registers its version, queues with caps and slots per class, and deletes dead rows on its heartbeat', async () => {
    const engine = await t.engine({
      version: '9.8.7',
      queues: [{ name: 'default' }, { name: 'emails', cap: 2 }],
      threads: 2,
      leaseMs: 3000,
    });
    const now = await t.store.now();
    await t.store.registerInstance(
      { id: 'dead', host: 'h', pid: 1, kinds: [] },
      new Date(now.getTime() - 10 * 3000 - 1000),
    );
    await t.store.registerInstance(
      { id: 'quiet', host: 'h', pid: 2, kinds: [] },
      new Date(now.getTime() - 20_000),
    );
    await engine.heartbeatOnce();
    const rows = await t.store.listInstances({ liveWithinMs: 6000 });
    const byId = (a: [string, boolean], b: [string, boolean]) => (a[0] < b[0] ? -1 : 1);
    assert.deepEqual(
      rows.map((row): [string, boolean] => [row.id, row.live]).sort(byId),
      [[engine.options.workerId, true] as [string, boolean], ['quiet', false] as [string, boolean]].sort(
        byId,
      ),
      'the dead row (not seen for 10 leases) is gone, the quiet one stays, listed as not live',
    );
    const self = rows.find((row) => row.id === engine.options.workerId);
    assert.equal(self?.version, '9.8.7');
    assert.deepEqual(self?.queues, [{ name: 'default' }, { name: 'emails', cap: 2 }]);
    const expectedSlots = Object.fromEntries(
      Object.entries(engine.slots).map(([execution, counts]) => [execution, counts.total]),
    );
    assert.deepEqual(self?.slots, expectedSlots);
    assert.equal(self?.slots.cpu, 2);
    assert.deepEqual(self?.kinds, engine.kinds);
  });
});

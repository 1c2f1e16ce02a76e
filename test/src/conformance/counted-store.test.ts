import { it } from 'node:test';
import assert from 'node:assert/strict';
import { NudgeMetrics } from '@nudge/http';
import { countStoreCalls } from '@nudge/store';
import { parsePrometheusText } from '../helpers/index.js';
import { describeStore } from './store-fixture.js';

describeStore('counted store calls', (t) => {
  it('counts each method call by name, passes results and errors through, and reads getters as they are', async () => {
    const calls: string[] = [];
    const store = countStoreCalls(t.store, (method) => calls.push(method));
    assert.equal(store.dialect, t.store.dialect);
    assert.deepEqual(store.capabilities, t.store.capabilities);
    const job = await store.enqueue({ kind: 'k', payload: { n: 1 } });
    assert.deepEqual((await store.getJob(job.id))?.payload, { n: 1 });
    const [claimed] = await store.claim({
      workerId: 'w1',
      leaseMs: 10_000,
      groups: [{ kinds: ['k'], limit: 1 }],
    });
    assert.equal(claimed?.id, job.id);
    await assert.rejects(store.enqueue({ kind: '' }), { code: 'INVALID_REQUEST' });
    assert.deepEqual(calls, ['enqueue', 'getJob', 'claim', 'enqueue'], 'one count a call, none for getters');
    // The store's own calls of its methods are not counted again (SQLite's enqueue runs enqueueMany).
    assert.equal(calls.filter((c) => c === 'enqueueMany').length, 0);
  });

  it('NudgeMetrics exports the counts as nudge_store_calls_total{method}', async () => {
    const metrics = new NudgeMetrics({ store: t.store, processMetrics: false });
    const store = countStoreCalls(t.store, (method) => metrics.storeCalled(method));
    await store.enqueue({ kind: 'k' });
    await store.enqueue({ kind: 'k' });
    await store.countByStatus();
    const scrape = parsePrometheusText(await metrics.scrape());
    const value = (method: string) =>
      scrape.samples.find((s) => s.name === 'nudge_store_calls_total' && s.labels.method === method)?.value;
    assert.equal(value('enqueue'), 2);
    assert.equal(value('countByStatus'), 1);
    assert.equal(value('claim'), undefined, 'no series before the first call');
  });
});

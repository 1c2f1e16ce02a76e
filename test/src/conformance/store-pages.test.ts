import { it } from 'node:test';
import assert from 'node:assert/strict';
import { compareCodePoints } from '@nudge/store';
import { describeStore, leaseOf } from './store-fixture.js';

// The bounded reads behind GET /queues, GET /stats and GET /jobs: pages of names, and job rows
// without their payload or result.
describeStore('pages', (t) => {
  it('listQueues pages by name, counting only the page; recordedOnly lists the records', async () => {
    await t.store.enqueueMany(
      ['d', 'a', 'c', 'e'].flatMap((queue) => [
        { kind: 'k', queue },
        { kind: 'k', queue, delayMs: 60_000 },
      ]),
    );
    await t.store.setQueuePaused('b', true);
    await t.store.setQueueLimits('c', { concurrency: 2 });
    const names = (queues: { name: string }[]) => queues.map((q) => q.name);
    assert.deepEqual(names(await t.store.listQueues()), ['a', 'b', 'c', 'd', 'e']);
    const first = await t.store.listQueues({ limit: 2 });
    assert.deepEqual(names(first), ['a', 'b']);
    assert.deepEqual(
      first.map((q) => [q.pending, q.scheduled, q.paused]),
      [
        [1, 1, false],
        [0, 0, true],
      ],
    );
    const second = await t.store.listQueues({ after: 'b', limit: 2 });
    assert.deepEqual(names(second), ['c', 'd']);
    assert.equal(second[0]?.concurrency, 2);
    assert.deepEqual(names(await t.store.listQueues({ after: 'd', limit: 2 })), ['e']);
    assert.deepEqual(await t.store.listQueues({ after: 'e', limit: 2 }), []);
    assert.deepEqual(await t.store.listQueues({ limit: 0 }), []);
    assert.deepEqual(names(await t.store.listQueues({ recordedOnly: true })), ['b', 'c']);
    assert.deepEqual(names(await t.store.listQueues({ recordedOnly: true, after: 'b', limit: 5 })), ['c']);
  });

  it('stats pages the counts by kind and by queue, in code point order, and keeps the totals', async () => {
    const kinds = ['b', 'a', 'Z', 'é', '𝒳', '\uffff'];
    await t.store.enqueueMany(kinds.map((kind, n) => ({ kind, queue: `q${n % 3}` })));
    const sorted = [...kinds].sort(compareCodePoints);
    assert.deepEqual(sorted, ['Z', 'a', 'b', 'é', '\uffff', '𝒳']);
    const all = await t.store.stats({ instanceLiveWithinMs: 60_000 });
    assert.deepEqual(Object.keys(all.byKind), sorted);
    assert.deepEqual(Object.keys(all.byQueue), ['q0', 'q1', 'q2']);

    const seen: string[] = [];
    let after: string | undefined;
    for (let page = 0; page < 5; page += 1) {
      const stats = await t.store.stats({
        instanceLiveWithinMs: 60_000,
        kinds: { limit: 4, ...(after === undefined ? {} : { after }) },
        queues: { limit: 0 },
      });
      assert.equal(stats.byStatus.PENDING, kinds.length, 'every page has the totals');
      assert.deepEqual(stats.byQueue, {});
      const names = Object.keys(stats.byKind).sort(compareCodePoints);
      seen.push(...names);
      if (names.length < 4) break;
      after = names.at(-1);
    }
    assert.deepEqual(seen, sorted, 'pages in code point order, none twice, none missed');
    const queues = await t.store.stats({ instanceLiveWithinMs: 60_000, queues: { after: 'q0', limit: 1 } });
    assert.deepEqual(Object.keys(queues.byQueue), ['q1']);
    assert.equal(queues.byQueue.q1?.PENDING, 2);
    assert.deepEqual(Object.keys(queues.byKind), sorted, 'kinds not paged: every kind');
  });

  it('listJobs leaves payload or result unread when columns says so', async () => {
    const [job] = await t.store.enqueueMany([{ kind: 'k', payload: { big: 'x'.repeat(1000) } }]);
    assert.ok(job);
    const [claimed] = await t.claim(1, { kinds: ['k'] });
    assert.ok(claimed);
    await t.store.complete([{ ...leaseOf(claimed), resultJson: '{"done":1}' }]);
    const read = async (payload: boolean, result: boolean) => {
      const [row] = await t.store.listJobs({ limit: 1, columns: { payload, result } });
      return row && [row.id, row.payload, row.result, row.status];
    };
    const payload = { big: 'x'.repeat(1000) };
    assert.deepEqual(await read(false, false), [job.id, null, null, 'SUCCEEDED']);
    assert.deepEqual(await read(true, false), [job.id, payload, null, 'SUCCEEDED']);
    assert.deepEqual(await read(false, true), [job.id, null, { done: 1 }, 'SUCCEEDED']);
    assert.deepEqual(await read(true, true), [job.id, payload, { done: 1 }, 'SUCCEEDED']);
    const [whole] = await t.store.listJobs({ limit: 1 });
    const [summary] = await t.store.listJobs({ limit: 1, columns: { payload: false, result: false } });
    assert.deepEqual(summary, { ...whole, payload: null, result: null }, 'every other field read alike');
  });
});

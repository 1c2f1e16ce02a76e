import { it } from 'node:test';
import assert from 'node:assert/strict';
import { rawQuery } from '../helpers/index.js';
import { LEASE_MS, describeStore } from './store-fixture.js';

describeStore('named queues', (t) => {
  const claimFrom = (
    limit: number,
    options: { queues?: string[]; queueLimits?: Record<string, number>; kinds?: string[] } = {},
  ) =>
    t.store.claim({
      workerId: 'w1',
      leaseMs: LEASE_MS,
      groups: [
        { kinds: options.kinds ?? ['k'], limit, ...(options.queues ? { queues: options.queues } : {}) },
      ],
      ...(options.queueLimits ? { queueLimits: options.queueLimits } : {}),
    });

  it("a job waits in 'default' unless it names a queue; a plain INSERT may name one", async () => {
    const plain = await t.store.enqueue({ kind: 'k' });
    const named = await t.store.enqueue({ kind: 'k', queue: 'emails' });
    await rawQuery(t.db, `INSERT INTO nudge_jobs (kind, queue) VALUES ('k', 'reports')`);
    assert.equal(plain.queue, 'default');
    assert.equal(named.queue, 'emails');
    const claimed = await claimFrom(10);
    assert.deepEqual(claimed.map((j) => j.queue).sort(), ['default', 'emails', 'reports']);
  });

  it('claims only from the queues a group names, and from a capped queue only up to its limit', async () => {
    await t.store.enqueueMany([
      { kind: 'k', queue: 'a' },
      { kind: 'k', queue: 'b' },
      { kind: 'k', queue: 'c' },
      { kind: 'k', queue: 'c' },
      { kind: 'k', queue: 'c' },
    ]);
    assert.deepEqual(
      (await claimFrom(10, { queues: ['a'], queueLimits: { c: 0 } })).map((j) => j.queue),
      ['a'],
      'a capped queue with no room left is not read',
    );
    assert.deepEqual(
      (await claimFrom(10, { queueLimits: { c: 2 } })).map((j) => j.queue).sort(),
      ['b', 'c', 'c'],
      'every queue, and the capped one up to its limit',
    );
    assert.deepEqual(await claimFrom(10, { queues: ['a', 'b'] }), []);
  });

  it('a capped queue keeps to its limit over all groups, in claim order', async () => {
    const capped = await t.store.enqueueMany(
      [3, 1, 5].map((priority) => ({ kind: 'k', queue: 'capped', priority })),
    );
    const other = await t.store.enqueueMany(
      [2, 0].map((priority) => ({ kind: 'b', queue: 'capped', priority })),
    );
    const open = await t.store.enqueueMany([2, 4].map((priority) => ({ kind: 'k', priority })));
    const claimed = await t.store.claim({
      workerId: 'w1',
      leaseMs: LEASE_MS,
      groups: [
        { kinds: ['k'], limit: 3 },
        { kinds: ['b'], limit: 5 },
      ],
      queueLimits: { capped: 2 },
    });
    const ids = (jobs: ReadonlyArray<{ id: number } | undefined>) =>
      jobs.map((job) => job?.id ?? 0).sort((x, y) => x - y);
    assert.deepEqual(
      ids(claimed),
      ids([other[1], capped[1], open[0], open[1]]),
      'the capped queue gives its 2 best rows (priorities 0 and 1) over both groups; group k takes 3',
    );
    assert.equal(
      (await t.store.listJobs({ status: 'PENDING', limit: 10 })).length,
      3,
      'rows locked but not kept stay PENDING',
    );
  });

  it('a paused queue is claimed by nobody until resumed; listQueues counts unfinished jobs', async () => {
    await t.store.enqueueMany([
      { kind: 'k', queue: 'emails' },
      { kind: 'k', queue: 'emails' },
      { kind: 'k' },
    ]);
    const paused = await t.store.setQueuePaused('emails', true);
    assert.equal(paused.name, 'emails');
    assert.equal(paused.paused, true);
    assert.equal(paused.pending, 2);
    assert.ok(paused.updatedAt instanceof Date);
    const first = await claimFrom(10);
    assert.deepEqual(
      first.map((j) => j.queue),
      ['default'],
    );
    assert.deepEqual(await claimFrom(10, { queues: ['emails'] }), []);
    const queues = await t.store.listQueues();
    assert.deepEqual(
      queues.map((q) => [q.name, q.paused, q.pending, q.running]),
      [
        ['default', false, 0, 1],
        ['emails', true, 2, 0],
      ],
    );
    assert.equal((await t.store.setQueuePaused('emails', false)).paused, false);
    assert.equal((await claimFrom(10)).length, 2);
  });

  it('listQueues counts each unfinished status of a queue, WAITING included, and no finished job', async () => {
    const [first] = await t.store.enqueueMany([
      { kind: 'k', queue: 'flow' },
      { kind: 'k', queue: 'flow', dependsOn: [{ index: 0 }] },
      { kind: 'k', queue: 'flow', delayMs: 3_600_000 },
      { kind: 'k', queue: 'flow' },
      { kind: 'k', queue: 'flow' },
    ]);
    assert.ok(first);
    const claimed = await claimFrom(2, { queues: ['flow'] });
    // Not the dependency: its success would release the waiting job.
    const finished = claimed.find((j) => j.id !== first.id);
    assert.ok(finished);
    await t.store.complete([{ id: finished.id, version: finished.version, resultJson: null }]);
    const [flow] = await t.store.listQueues();
    assert.deepEqual(flow && [flow.name, flow.waiting, flow.scheduled, flow.pending, flow.running], [
      'flow',
      1,
      1,
      1,
      1,
    ]);
  });

  it('a queue paused before it has any job is listed, and enqueueAndClaim does not claim its jobs', async () => {
    await t.store.setQueuePaused('later', true);
    assert.deepEqual(
      (await t.store.listQueues()).map((q) => [q.name, q.paused, q.pending]),
      [['later', true, 0]],
    );
    const job = await t.store.enqueueAndClaim(
      { kind: 'k', queue: 'later' },
      { workerId: 'w1', leaseMs: LEASE_MS, kinds: ['k'] },
    );
    assert.equal(job.status, 'PENDING', 'a job of a paused queue is not claimed by its producer');
    const other = await t.store.enqueueAndClaim(
      { kind: 'k' },
      { workerId: 'w1', leaseMs: LEASE_MS, kinds: ['k'] },
    );
    assert.equal(other.status, 'PENDING', 'a due job of the same kind is ahead of it in claim order');
  });

  it('listJobs filters by queue', async () => {
    await t.store.enqueueMany([
      { kind: 'k', queue: 'a' },
      { kind: 'k', queue: 'b' },
      { kind: 'k', queue: 'a' },
    ]);
    const listed = await t.store.listJobs({ queue: 'a', limit: 10 });
    assert.deepEqual(
      listed.map((j) => j.queue),
      ['a', 'a'],
    );
  });
});

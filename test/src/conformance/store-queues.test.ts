import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { ClaimSource } from '@nudge/store';
import { rawQuery } from '../helpers/index.js';
import { LEASE_MS, describeStore } from './store-fixture.js';

describeStore('named queues', (t) => {
  const claimFrom = (limit: number, sources?: ClaimSource[]) =>
    t.store.claim({
      workerId: 'w1',
      leaseMs: LEASE_MS,
      groups: [{ kinds: ['k'], limit, ...(sources ? { sources } : {}) }],
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

  it('claims only from the queues a source names, or from every queue but the excepted ones', async () => {
    await t.store.enqueueMany([
      { kind: 'k', queue: 'a' },
      { kind: 'k', queue: 'b' },
      { kind: 'k', queue: 'c' },
      { kind: 'k', queue: 'c' },
    ]);
    assert.deepEqual((await claimFrom(10, [{ queues: ['a', 'b'], limit: 10 }])).map((j) => j.queue).sort(), [
      'a',
      'b',
    ]);
    assert.deepEqual(await claimFrom(10, [{ exceptQueues: ['c'], limit: 10 }]), []);
    assert.equal(
      (await claimFrom(10, [{ queues: ['c'], limit: 1 }])).length,
      1,
      'a source keeps to its limit',
    );
  });

  it("a group keeps the first of its sources' rows in claim order, up to the group's limit", async () => {
    const capped = await t.store.enqueueMany(
      [3, 1, 5].map((priority) => ({ kind: 'k', queue: 'capped', priority })),
    );
    const open = await t.store.enqueueMany([2, 4].map((priority) => ({ kind: 'k', priority })));
    const claimed = await claimFrom(3, [
      { queues: ['capped'], limit: 2 },
      { exceptQueues: ['capped'], limit: 3 },
    ]);
    const byPriority = [capped[1], open[0], capped[0]].map((job) => job?.id);
    assert.deepEqual(
      claimed.map((j) => j.id).sort((x, y) => x - y),
      byPriority.sort((x = 0, y = 0) => x - y),
      'priorities 1, 2 and 3: two from the capped source, one from the rest',
    );
    const unclaimed = await t.store.listJobs({ status: 'PENDING', limit: 10 });
    assert.equal(unclaimed.length, 2, 'rows locked but not kept stay PENDING');
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
    assert.deepEqual(await claimFrom(10, [{ queues: ['emails'], limit: 10 }]), []);
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

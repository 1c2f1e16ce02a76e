// A debounced job that started is no longer the one that waits for its key: its retry, a requeue
// of its expired lease and a release keep its payload and backoff, and never meet the job that a
// later enqueue of the same key made (the unique index covers only jobs that never started).
import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonValue } from '@nudge/core';
import type { ClaimedJob, EnqueuedJob } from '@nudge/store';
import { describeStore, later, leaseOf, LEASE_MS } from './store-fixture.js';

const HOUR_MS = 3_600_000;

describeStore('debounced jobs that started', (t) => {
  /** Enqueues a debounced job of key `d`, promotes and claims it; `due` is the clock used. */
  const startDebounced = async (
    payload: JsonValue,
  ): Promise<{ job: EnqueuedJob; claimed: ClaimedJob; due: Date }> => {
    const job = await t.store.enqueue({ kind: 'k', payload, debounce: { key: 'd', delayMs: 1000 } });
    const due = later(job.runAt, 1);
    assert.equal((await t.store.promoteScheduled({ now: due })).promoted, 1);
    const [claimed] = await t.claim(1, { kinds: ['k'], now: due });
    assert.equal(claimed?.id, job.id);
    return { job, claimed, due };
  };
  const enqueueKey = (n: number) =>
    t.store.enqueue({ kind: 'k', payload: { n }, debounce: { key: 'd', delayMs: HOUR_MS } });

  it('a retry while a new job of the key waits: written, with its own payload and backoff; later enqueues replace the new job', async () => {
    const { job, claimed } = await startDebounced({ n: 1 });
    const waiting = await enqueueKey(2);
    assert.equal(waiting.created, true, 'the running job is not the waiting one');
    assert.notEqual(waiting.id, job.id);
    const before = await t.store.now();
    const [failed] = await t.store.fail([{ ...leaseOf(claimed), error: 'boom', retryDelayMs: HOUR_MS }]);
    assert.equal(failed?.status, 'SCHEDULED');
    const retrying = await t.store.getJob(job.id);
    assert.deepEqual(retrying?.payload, { n: 1 });
    assert.equal(retrying?.attempts, 1);
    assert.ok((retrying?.runAt.getTime() ?? 0) >= before.getTime() + HOUR_MS, 'its backoff');
    const again = await enqueueKey(3);
    assert.equal(again.created, false);
    assert.equal(again.id, waiting.id, 'the replace finds the job that never started');
    assert.deepEqual((await t.store.getJob(waiting.id))?.payload, { n: 3 });
    const after = await t.store.getJob(job.id);
    assert.deepEqual(after?.payload, { n: 1 }, 'the retrying job keeps its payload');
    assert.equal(after?.runAt.getTime(), retrying?.runAt.getTime(), 'and its backoff');
  });

  it('an enqueue while the job waits for its retry creates a new job instead of replacing it', async () => {
    const { job, claimed } = await startDebounced({ n: 1 });
    await t.store.fail([{ ...leaseOf(claimed), error: 'boom', retryDelayMs: HOUR_MS }]);
    const retrying = await t.store.getJob(job.id);
    const fresh = await enqueueKey(2);
    assert.equal(fresh.created, true);
    assert.notEqual(fresh.id, job.id);
    assert.equal(fresh.status, 'SCHEDULED');
    const kept = await t.store.getJob(job.id);
    assert.deepEqual(kept?.payload, { n: 1 });
    assert.equal(kept?.runAt.getTime(), retrying?.runAt.getTime());
    assert.equal((await enqueueKey(3)).id, fresh.id, 'later enqueues replace the new job');
  });

  it('the sweep requeues an expired lease after a backoff while a new job of the key waits', async () => {
    const { job, due } = await startDebounced({ n: 1 });
    const waiting = await enqueueKey(2);
    const sweep = await t.store.sweepExpired({
      now: later(due, LEASE_MS + 1),
      retryDelayMs: () => HOUR_MS,
    });
    assert.equal(sweep.requeued, 1);
    const requeued = await t.store.getJob(job.id);
    assert.equal(requeued?.status, 'SCHEDULED');
    assert.deepEqual(requeued?.payload, { n: 1 });
    assert.equal((await enqueueKey(3)).id, waiting.id);
    assert.deepEqual((await t.store.getJob(job.id))?.payload, { n: 1 });
  });

  it('a release (shutdown) puts the job back PENDING while a new job of the key waits', async () => {
    const { job, claimed } = await startDebounced({ n: 1 });
    const waiting = await enqueueKey(2);
    assert.equal((await t.store.release([leaseOf(claimed)])).length, 1);
    assert.equal((await t.store.getJob(job.id))?.status, 'PENDING');
    assert.equal((await enqueueKey(3)).id, waiting.id);
  });
});

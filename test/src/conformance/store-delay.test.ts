import { it } from 'node:test';
import assert from 'node:assert/strict';
import { NudgeError } from '@nudge/core';
import { MAX_DELAY_MS, type EnqueuedJob } from '@nudge/store';
import { LEASE_MS, describeStore, later } from './store-fixture.js';

const SELF = { workerId: 'self', leaseMs: LEASE_MS, kinds: ['k'] };

/** Asserts that `job.runAt` is `delayMs` after a database time between `before` and `after`. */
function assertDelayed(job: EnqueuedJob, delayMs: number, before: Date, after: Date): void {
  const runAt = job.runAt.getTime();
  assert.ok(
    runAt >= before.getTime() + delayMs && runAt <= after.getTime() + delayMs,
    `run_at ${job.runAt.toISOString()} is ${delayMs} ms after the database's now (between ${before.toISOString()} and ${after.toISOString()})`,
  );
}

describeStore('delayMs', (t) => {
  it('a delayed job is SCHEDULED at the database clock plus the delay, and runs once promoted', async () => {
    const before = await t.store.now();
    const job = await t.store.enqueue({ kind: 'k', delayMs: 60_000 });
    const after = await t.store.now();
    assert.equal(job.status, 'SCHEDULED');
    assertDelayed(job, 60_000, before, after);
    assert.deepEqual(await t.store.getJob(job.id), (({ created: _, ...rest }) => rest)(job));
    assert.equal((await t.claim(1)).length, 0, 'not due for a minute');
    assert.equal((await t.store.promoteScheduled({ now: later(job.runAt, -2) })).promoted, 0);
    // PostgreSQL keeps microseconds that a Date drops: 1 ms later is past run_at on both.
    const due = later(job.runAt, 1);
    assert.equal((await t.store.promoteScheduled({ now: due })).promoted, 1);
    const [claimed] = await t.claim(1, { now: due });
    assert.equal(claimed?.id, job.id);
  });

  it('delayMs 0 is due at once: PENDING at the database now', async () => {
    const before = await t.store.now();
    const job = await t.store.enqueue({ kind: 'k', delayMs: 0 });
    const after = await t.store.now();
    assert.equal(job.status, 'PENDING');
    assertDelayed(job, 0, before, after);
    assert.equal((await t.claim(1))[0]?.id, job.id);
  });

  it('a batch mixes delays, runAt and neither, each job with its own start', async () => {
    const before = await t.store.now();
    const runAt = later(before, 3_600_000);
    const jobs = await t.store.enqueueMany([
      { kind: 'k', delayMs: 5000 },
      { kind: 'k' },
      { kind: 'k', runAt },
      { kind: 'k', delayMs: MAX_DELAY_MS, payload: { n: 4 } },
      { kind: 'k', delayMs: 0 },
    ]);
    const after = await t.store.now();
    assert.deepEqual(
      jobs.map((j) => j.status),
      ['SCHEDULED', 'PENDING', 'SCHEDULED', 'SCHEDULED', 'PENDING'],
    );
    assertDelayed(jobs[0] as EnqueuedJob, 5000, before, after);
    assert.equal(jobs[2]?.runAt.getTime(), runAt.getTime());
    assertDelayed(jobs[3] as EnqueuedJob, MAX_DELAY_MS, before, after);
    assert.deepEqual(jobs[3]?.payload, { n: 4 });
  });

  it('enqueueAndClaim never claims a delayed job; delayMs 0 may claim', async () => {
    const before = await t.store.now();
    const delayed = await t.store.enqueueAndClaim({ kind: 'k', delayMs: 2000, priority: -5 }, SELF);
    const after = await t.store.now();
    assert.equal(delayed.status, 'SCHEDULED');
    assert.equal(delayed.claimedBy, null);
    assert.equal(delayed.attempts, 0);
    assertDelayed(delayed, 2000, before, after);
    const now = await t.store.enqueueAndClaim({ kind: 'k', delayMs: 0 }, SELF);
    assert.equal(now.status, 'RUNNING');
    assert.equal(now.claimedBy, 'self');
  });

  it('refuses delayMs with runAt, or out of range, naming the fields; nothing is written', async () => {
    const dbNow = await t.store.now();
    const both = { kind: 'k', delayMs: 10, runAt: later(dbNow, 10) };
    const refusals: Array<[() => Promise<unknown>, RegExp]> = [
      [() => t.store.enqueue(both), /^\/runAt and \/delayMs cannot both be given/],
      [() => t.store.enqueueAndClaim(both, SELF), /^\/runAt and \/delayMs cannot both be given/],
      [
        () => t.store.enqueueMany([{ kind: 'k' }, both]),
        /^\/jobs\/1\/runAt and \/jobs\/1\/delayMs cannot both be given/,
      ],
      [() => t.store.enqueue({ kind: 'k', delayMs: -1 }), /^\/delayMs must be a whole number .*\(got -1\)/],
      [() => t.store.enqueue({ kind: 'k', delayMs: 1.5 }), /\(got 1\.5\)/],
      [() => t.store.enqueue({ kind: 'k', delayMs: MAX_DELAY_MS + 1 }), /from 0 to 31536000000/],
      [() => t.store.enqueueAndClaim({ kind: 'k', delayMs: Number.NaN }, SELF), /\(got NaN\)/],
    ];
    for (const [call, message] of refusals) {
      await assert.rejects(call, (error: unknown) => {
        assert.ok(error instanceof NudgeError);
        assert.equal(error.code, 'INVALID_REQUEST');
        assert.match(error.message, message);
        return true;
      });
    }
    assert.equal((await t.store.listJobs({ limit: 10 })).length, 0);
  });
});

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { describeStore, later, leaseOf } from './store-fixture.js';

describeStore('cancel and retry', (t) => {
  it('cancels a PENDING or SCHEDULED job, and refuses a finished one', async () => {
    const now = await t.store.now();
    const pending = await t.store.enqueue({ kind: 'k' });
    const scheduled = await t.store.enqueue({ kind: 'k', runAt: later(now, 60_000) });
    for (const job of [pending, scheduled]) {
      const result = await t.store.cancelJob(job.id);
      assert.equal(result.outcome, 'changed');
      assert.ok(result.outcome === 'changed');
      assert.equal(result.previous, job.status);
      assert.equal(result.job.status, 'CANCELLED');
      assert.equal(result.job.version, job.version + 1);
      assert.ok(result.job.finishedAt);
    }
    const again = await t.store.cancelJob(pending.id);
    assert.equal(again.outcome, 'conflict');
    assert.ok(again.outcome === 'conflict');
    assert.equal(again.job.status, 'CANCELLED');
    assert.deepEqual(await t.claim(10), [], 'a cancelled job is never claimed');
    assert.deepEqual(await t.store.cancelJob(999_999), { outcome: 'not-found' });
  });

  it("cancels a RUNNING job: the attempt's late outcome, heartbeat and release change nothing", async () => {
    await t.store.enqueue({ kind: 'k' });
    const [claimed] = await t.claim(1);
    assert.ok(claimed);
    const result = await t.store.cancelJob(claimed.id);
    assert.ok(result.outcome === 'changed');
    assert.equal(result.previous, 'RUNNING');
    assert.equal(result.job.leaseExpiresAt, null);
    const lease = leaseOf(claimed);
    assert.deepEqual(await t.store.heartbeat([lease], 10_000), []);
    assert.deepEqual(await t.store.complete([{ ...lease, resultJson: '1' }]), []);
    assert.deepEqual(await t.store.fail([{ ...lease, error: 'late', retryDelayMs: 0 }]), []);
    assert.deepEqual(await t.store.release([lease]), []);
    const job = await t.store.getJob(claimed.id);
    assert.equal(job?.status, 'CANCELLED');
    assert.equal(job?.result, null);
    const far = later(await t.store.now(), 3_600_000);
    assert.deepEqual(await t.store.sweepExpired({ retryDelayMs: () => 0, now: far }), {
      requeued: 0,
      failed: 0,
      isolated: 0,
      recovered: [],
      nextLeaseExpiryInMs: null,
    });
  });

  it('retries a FAILED or CANCELLED job with fresh attempts, and refuses any other', async () => {
    await t.store.enqueue({ kind: 'k', maxAttempts: 1 });
    const [claimed] = await t.claim(1);
    assert.ok(claimed);
    const [failed] = await t.store.fail([{ ...leaseOf(claimed), error: 'boom', retryDelayMs: 0 }]);
    assert.equal(failed?.status, 'FAILED');
    const retried = await t.store.retryJob(claimed.id);
    assert.ok(retried.outcome === 'changed');
    assert.equal(retried.previous, 'FAILED');
    assert.equal(retried.job.status, 'PENDING');
    assert.equal(retried.job.attempts, 0);
    assert.equal(retried.job.finishedAt, null);
    assert.equal(retried.job.lastError, 'boom', 'the last error stays readable');
    const conflict = await t.store.retryJob(claimed.id);
    assert.ok(conflict.outcome === 'conflict');
    assert.equal(conflict.job.status, 'PENDING');
    const [again] = await t.claim(1);
    assert.equal(again?.attempt, 1, 'the retried job starts again from attempt 1');
    assert.ok(again);
    assert.equal((await t.store.retryJob(again.id)).outcome, 'conflict', 'a running job is not retried');
    await t.store.complete([{ ...leaseOf(again), resultJson: '2' }]);
    assert.equal((await t.store.retryJob(again.id)).outcome, 'conflict', 'a succeeded job is final');
    assert.equal((await t.store.cancelJob(again.id)).outcome, 'conflict');
    const cancelled = await t.store.enqueue({ kind: 'k' });
    await t.store.cancelJob(cancelled.id);
    const back = await t.store.retryJob(cancelled.id);
    assert.ok(back.outcome === 'changed');
    assert.equal(back.previous, 'CANCELLED');
    assert.deepEqual(await t.store.retryJob(424_242), { outcome: 'not-found' });
  });
});

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_ATTEMPT_ERRORS } from '@nudge/core';
import { describeStore, later, leaseOf } from './store-fixture.js';

describeStore('attempt-error history', (t) => {
  it('each failure appends {attempt, at, error, instance}; 12 failures keep the last 10', async () => {
    const job = await t.store.enqueue({ kind: 'k', maxAttempts: 20 });
    const start = await t.store.now();
    for (let n = 1; n <= 12; n += 1) {
      const now = later(start, n * 1000);
      const [claimed] = await t.claim(1, { now, workerId: `w${n % 3}` });
      assert.equal(claimed?.attempt, n);
      const [outcome] = await t.store.fail(
        [{ ...leaseOf(claimed ?? job), error: `boom ${n}`, retryDelayMs: 0 }],
        later(now, 10),
      );
      assert.equal(outcome?.status, 'PENDING');
      if (n === 1) {
        const once = await t.store.getJob(job.id);
        assert.deepEqual(once?.errors, [
          { attempt: 1, at: later(start, 1010), error: 'boom 1', instance: 'w1' },
        ]);
      }
    }
    const row = await t.store.getJob(job.id);
    assert.equal(row?.errors.length, MAX_ATTEMPT_ERRORS);
    assert.deepEqual(
      row?.errors,
      Array.from({ length: 10 }, (_, i) => {
        const n = i + 3;
        return { attempt: n, at: later(start, n * 1000 + 10), error: `boom ${n}`, instance: `w${n % 3}` };
      }),
    );
    assert.equal(row?.lastError, 'boom 12');
  });

  it('a fenced-out failure appends nothing', async () => {
    await t.store.enqueue({ kind: 'k' });
    const [job] = await t.claim(1);
    assert.ok(job);
    assert.deepEqual(
      await t.store.fail([{ ...leaseOf(job), version: job.version + 1, error: 'x', retryDelayMs: 0 }]),
      [],
    );
    assert.deepEqual((await t.store.getJob(job.id))?.errors, []);
  });

  it('the final failure is kept too, and the message is stored as recorded', async () => {
    await t.store.enqueue({ kind: 'k', maxAttempts: 1 });
    const [job] = await t.claim(1, { workerId: 'solo' });
    assert.ok(job);
    const error = `bad \u0000 ${'x'.repeat(9000)}`;
    const [outcome] = await t.store.fail([{ ...leaseOf(job), error, retryDelayMs: 0 }]);
    assert.equal(outcome?.status, 'FAILED');
    const row = await t.store.getJob(job.id);
    assert.equal(row?.errors.length, 1);
    assert.equal(row?.errors[0]?.error, row?.lastError, 'the same storable text as last_error');
    assert.equal(row?.errors[0]?.instance, 'solo');
    assert.equal(row?.errors[0]?.at.getTime(), row?.finishedAt?.getTime());
  });

  it('a sweep of an expired lease appends an entry that matches last_error', async () => {
    const job = await t.store.enqueue({ kind: 'k', maxAttempts: 3 });
    const now = await t.store.now();
    const [first] = await t.claim(1, { now, workerId: 'w-first' });
    assert.ok(first);
    await t.store.fail([{ ...leaseOf(first), error: 'first', retryDelayMs: 0 }], later(now, 5));
    const [second] = await t.claim(1, { now: later(now, 10), workerId: 'w-gone' });
    assert.ok(second);
    const expiry = later((await t.store.getJob(job.id))?.leaseExpiresAt ?? now, 1);
    assert.deepEqual(await t.store.sweepExpired({ retryDelayMs: () => 0, now: expiry }), {
      requeued: 1,
      failed: 0,
      isolated: 0,
      recovered: [{ kind: job.kind, queue: 'default', failed: false }],
      nextLeaseExpiryInMs: null,
    });
    const row = await t.store.getJob(job.id);
    assert.match(row?.lastError ?? '', /^lease expired at \S+Z: the instance w-gone stopped heartbeating/);
    assert.deepEqual(row?.errors, [
      { attempt: 1, at: later(now, 5), error: 'first', instance: 'w-first' },
      { attempt: 2, at: expiry, error: row?.lastError, instance: 'w-gone' },
    ]);
  });
});

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { describeStore, later, leaseOf } from './store-fixture.js';

describeStore('activity', (t) => {
  it('counts finished jobs per bucket of the window, with their enqueue → start wait', async () => {
    await t.store.enqueueMany([{ kind: 'k' }, { kind: 'k' }, { kind: 'k', maxAttempts: 1 }]);
    const now = await t.store.now();
    const claimed = await t.claim(3, { now: later(now, 10_000) });
    assert.equal(claimed.length, 3);
    const [a, b, c] = claimed;
    assert.ok(a && b && c);
    await t.store.complete(
      [a, b].map((job) => ({ ...leaseOf(job), resultJson: null })),
      later(now, 10_000),
    );
    await t.store.fail(
      [{ ...leaseOf(c), error: 'boom', retryDelayMs: 0, permanent: true }],
      later(now, 70_000),
    );
    const buckets = await t.store.activity({
      windowMs: 3_600_000,
      bucketMs: 60_000,
      now: later(now, 90_000),
    });
    assert.deepEqual(
      buckets.map((bucket) => [bucket.succeeded, bucket.failed]),
      [
        [2, 0],
        [0, 1],
      ],
    );
    const [first, second] = buckets;
    assert.ok(first && second);
    assert.equal(second.start.getTime() - first.start.getTime(), 60_000, 'consecutive minutes');
    assert.ok(first.start.getTime() <= later(now, 10_000).getTime());
    assert.ok(first.start.getTime() > later(now, 10_000 - 60_000).getTime());
    // Each job's enqueue → start wait, from its stored timestamps (the claim's start is `now` + 10 s,
    // its enqueue the database clock a moment before `now`): the buckets must report exactly these.
    const waits = await Promise.all(
      [a, b, c].map(async (job) => {
        const row = await t.store.getJob(job.id);
        assert.ok(row?.startedAt);
        return row.startedAt.getTime() - row.createdAt.getTime();
      }),
    );
    const [waitA = NaN, waitB = NaN, waitC = NaN] = waits;
    const near = (actual: number | null, expected: number, what: string): void =>
      assert.ok(
        actual !== null && Math.abs(actual - expected) <= 1,
        `${what}: ${actual} ms, expected ${expected} ms`,
      );
    assert.ok(
      waits.every((ms) => ms >= 10_000 - 1),
      `each waited the 10 s before its claim (${waits.join(', ')})`,
    );
    near(first.latencyAvgMs, (waitA + waitB) / 2, 'first minute, average');
    near(first.latencyMaxMs, Math.max(waitA, waitB), 'first minute, longest');
    near(second.latencyAvgMs, waitC, 'second minute, average');
    near(second.latencyMaxMs, waitC, 'second minute, longest');
    const narrow = await t.store.activity({ windowMs: 30_000, bucketMs: 60_000, now: later(now, 90_000) });
    assert.deepEqual(
      narrow.map((bucket) => [bucket.succeeded, bucket.failed]),
      [[0, 1]],
      'the window starts 30 s back: only the failure is in it',
    );
  });
});

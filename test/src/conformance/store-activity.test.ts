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
    for (const bucket of buckets) {
      assert.ok(bucket.latencyAvgMs !== null && bucket.latencyAvgMs >= 9_990 && bucket.latencyAvgMs < 15_000);
      assert.ok(bucket.latencyMaxMs !== null && bucket.latencyMaxMs >= bucket.latencyAvgMs);
    }
    const narrow = await t.store.activity({ windowMs: 30_000, bucketMs: 60_000, now: later(now, 90_000) });
    assert.deepEqual(
      narrow.map((bucket) => [bucket.succeeded, bucket.failed]),
      [[0, 1]],
      'the window starts 30 s back: only the failure is in it',
    );
  });
});

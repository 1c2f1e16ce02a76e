import { it } from 'node:test';
import assert from 'node:assert/strict';
import { rawQuery } from '../helpers/index.js';
import { describeStore, later, leaseOf } from './store-fixture.js';

const LIVE_MS = 60_000;
const zero = { WAITING: 0, SCHEDULED: 0, PENDING: 0, RUNNING: 0, SUCCEEDED: 0, FAILED: 0, CANCELLED: 0 };

describeStore('stats', (t) => {
  it('reports an empty database as zeros and nulls', async () => {
    const now = await t.store.now();
    const stats = await t.store.stats({ instanceLiveWithinMs: LIVE_MS, now });
    assert.deepEqual(stats, {
      at: now,
      byStatus: zero,
      byKind: {},
      byQueue: {},
      oldestPendingAgeMs: null,
      lastHour: { succeeded: 0, failed: 0 },
      failureRateLastHour: null,
      instances: [],
    });
  });

  it('counts by status, kind and queue, the oldest pending age, the last hour and live instances', async () => {
    const now = await t.store.now();
    await t.store.enqueueMany([
      { kind: 'a', runAt: later(now, -5000) },
      { kind: 'a', queue: 'q2', runAt: later(now, -2000) },
      { kind: 'b', runAt: later(now, 60_000) },
      { kind: 'ok' },
      { kind: 'ok' },
      { kind: 'permanent', maxAttempts: 1 },
      { kind: 'c' },
    ]);
    const claimed = await t.claim(10, { kinds: ['ok', 'permanent', 'c'] });
    assert.equal(claimed.length, 4);
    const byKind = (kind: string) => claimed.filter((job) => job.kind === kind);
    await t.store.complete(
      byKind('ok').map((job) => ({ ...leaseOf(job), resultJson: null })),
      now,
    );
    await t.store.fail(
      byKind('permanent').map((job) => ({ ...leaseOf(job), error: 'boom', retryDelayMs: 0 })),
      now,
    );
    const [c] = byKind('c');
    await t.store.cancelJob(c?.id ?? -1, now);
    // One success two hours ago: outside the window.
    await t.store.enqueue({ kind: 'old' });
    const [old] = await t.claim(1, { kinds: ['old'] });
    await t.store.complete(
      [{ ...leaseOf(old ?? { id: -1, version: -1 }), resultJson: null }],
      later(now, -2 * 3_600_000),
    );
    await t.store.registerInstance({ id: 'live', host: 'h', pid: 1, kinds: ['a'], slots: { cpu: 2 } }, now);
    await t.store.registerInstance({ id: 'gone', host: 'h', pid: 2, kinds: ['b'] }, later(now, -LIVE_MS - 1));

    const stats = await t.store.stats({ instanceLiveWithinMs: LIVE_MS, now });
    assert.deepEqual(stats.byStatus, {
      ...zero,
      SCHEDULED: 1,
      PENDING: 2,
      SUCCEEDED: 3,
      FAILED: 1,
      CANCELLED: 1,
    });
    assert.deepEqual(stats.byKind, {
      a: { ...zero, PENDING: 2 },
      b: { ...zero, SCHEDULED: 1 },
      c: { ...zero, CANCELLED: 1 },
      ok: { ...zero, SUCCEEDED: 2 },
      old: { ...zero, SUCCEEDED: 1 },
      permanent: { ...zero, FAILED: 1 },
    });
    assert.deepEqual(stats.byQueue, {
      default: { ...zero, SCHEDULED: 1, PENDING: 1, SUCCEEDED: 3, FAILED: 1, CANCELLED: 1 },
      q2: { ...zero, PENDING: 1 },
    });
    assert.equal(stats.oldestPendingAgeMs, 5000);
    assert.deepEqual(stats.lastHour, { succeeded: 2, failed: 1 });
    assert.equal(stats.failureRateLastHour, 1 / 3);
    assert.deepEqual(
      stats.instances.map((i) => [i.id, i.live, i.slots]),
      [['live', true, { cpu: 2 }]],
    );
    // Against the table itself.
    const [total] = await rawQuery<{ n: number | string }>(t.db, 'SELECT count(*) AS n FROM nudge_jobs');
    assert.equal(
      Object.values(stats.byStatus).reduce((a, b) => a + b, 0),
      Number(total?.n),
    );
  });
});

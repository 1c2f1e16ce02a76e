import { it } from 'node:test';
import assert from 'node:assert/strict';
import { LEASE_MS, describeStore, later, leaseOf } from './store-fixture.js';

describeStore('outcomes and fencing', (t) => {
  it('fences stale attempts: complete, fail, heartbeat and release of an old version change nothing', async () => {
    await t.store.enqueue({ kind: 'k' });
    const [stale] = await t.claim(1);
    assert.ok(stale);
    const expiredAt = later((await t.store.getJob(stale.id))?.leaseExpiresAt ?? new Date(), 1);
    assert.deepEqual(await t.store.sweepExpired({ retryDelayMs: () => 0, now: expiredAt }), {
      requeued: 1,
      failed: 0,
      isolated: 0,
      recovered: [{ kind: 'k', queue: 'default', failed: false }],
      nextLeaseExpiryInMs: null,
    });
    const [current] = await t.claim(1, { now: later(expiredAt, 1), workerId: 'w2' });
    assert.ok(current);
    assert.equal(current.version, stale.version + 2);
    const staleLease = leaseOf(stale);
    assert.deepEqual(await t.store.heartbeat([staleLease], LEASE_MS), []);
    assert.deepEqual(await t.store.complete([{ ...staleLease, resultJson: '"stale"' }]), []);
    assert.deepEqual(await t.store.fail([{ ...staleLease, error: 'stale', retryDelayMs: 0 }]), []);
    assert.deepEqual(await t.store.release([staleLease]), []);
    const row = await t.store.getJob(stale.id);
    assert.equal(row?.status, 'RUNNING');
    assert.equal(row?.claimedBy, 'w2');
    assert.equal(row?.result, null);
    assert.deepEqual(await t.store.complete([{ ...leaseOf(current), resultJson: '{"ok":true}' }]), [
      leaseOf(current),
    ]);
    assert.deepEqual((await t.store.getJob(stale.id))?.result, { ok: true });
  });

  it('heartbeat extends only current leases, from the database clock', async () => {
    await t.store.enqueueMany([{ kind: 'k' }, { kind: 'k' }]);
    const [a, b] = await t.claim(2);
    assert.ok(a && b);
    const before = (await t.store.getJob(b.id))?.leaseExpiresAt;
    const now = later(await t.store.now(), 5000);
    const held = await t.store.heartbeat([leaseOf(a), { id: b.id, version: b.version + 7 }], LEASE_MS, now);
    assert.deepEqual(held, [leaseOf(a)]);
    assert.equal((await t.store.getJob(a.id))?.leaseExpiresAt?.getTime(), now.getTime() + LEASE_MS);
    assert.equal((await t.store.getJob(b.id))?.leaseExpiresAt?.getTime(), before?.getTime());
  });

  it('records success with its result, and failure as a retry after backoff or as FAILED', async () => {
    await t.store.enqueueMany([
      { kind: 'ok' },
      { kind: 'retry', maxAttempts: 3 },
      { kind: 'again', maxAttempts: 3 },
      { kind: 'last', maxAttempts: 1 },
      { kind: 'permanent', maxAttempts: 9 },
    ]);
    const jobs = await t.claim(5);
    const lease = (kind: string) => {
      const job = jobs.find((j) => j.kind === kind);
      assert.ok(job, kind);
      return leaseOf(job);
    };
    const now = await t.store.now();
    await t.store.complete([{ ...lease('ok'), resultJson: '[1,"two",{"three":3}]' }], now);
    const outcomes = await t.store.fail(
      [
        { ...lease('retry'), error: 'boom', retryDelayMs: 4000 },
        { ...lease('again'), error: 'at once', retryDelayMs: 0 },
        { ...lease('last'), error: 'out of tries', retryDelayMs: 4000 },
        { ...lease('permanent'), error: 'bad payload', retryDelayMs: 4000, permanent: true },
      ],
      now,
    );
    assert.deepEqual(
      new Map(outcomes.map((o) => [o.id, o.status])),
      new Map([
        [lease('retry').id, 'SCHEDULED'],
        [lease('again').id, 'PENDING'],
        [lease('last').id, 'FAILED'],
        [lease('permanent').id, 'FAILED'],
      ]),
    );
    const ok = await t.store.getJob(lease('ok').id);
    assert.equal(ok?.status, 'SUCCEEDED');
    assert.deepEqual(ok?.result, [1, 'two', { three: 3 }]);
    assert.equal(ok?.finishedAt?.getTime(), now.getTime());
    const retry = await t.store.getJob(lease('retry').id);
    assert.equal(retry?.status, 'SCHEDULED');
    assert.equal(retry?.lastError, 'boom');
    assert.equal(retry?.runAt.getTime(), now.getTime() + 4000);
    assert.equal(retry?.finishedAt, null);
    assert.deepEqual(
      (await t.claim(5)).map((j) => j.id),
      [lease('again').id],
      'a retry without delay is due at once; one with a delay waits',
    );
    assert.equal(
      (await t.store.promoteScheduled({ now: later(now, 3999) })).promoted,
      0,
      'not due before its backoff',
    );
    assert.equal((await t.store.promoteScheduled({ now: later(now, 4000) })).promoted, 1);
    assert.deepEqual(
      (await t.claim(5, { now: later(now, 4000) })).map((j) => j.id),
      [lease('retry').id],
    );
    const last = await t.store.getJob(lease('last').id);
    assert.equal(last?.status, 'FAILED');
    assert.equal(last?.lastError, 'out of tries');
    assert.equal((await t.store.getJob(lease('permanent').id))?.status, 'FAILED');
  });

  it('sweeps expired leases: back to waiting with backoff, or FAILED when attempts are used up', async () => {
    await t.store.enqueueMany([
      { kind: 'again', maxAttempts: 2 },
      { kind: 'done', maxAttempts: 1 },
      { kind: 'alive', maxAttempts: 1 },
      { kind: 'k', maxAttempts: 2 },
    ]);
    const jobs = await t.claim(4);
    const byKind = (kind: string) => jobs.find((j) => j.kind === kind) ?? assert.fail(kind);
    const expiry = later((await t.store.getJob(jobs[0]?.id ?? -1))?.leaseExpiresAt ?? new Date(), 1);
    await t.store.heartbeat([leaseOf(byKind('alive'))], LEASE_MS, expiry);
    const calls: Array<{ kind: string; attempts: number }> = [];
    const result = await t.store.sweepExpired({
      now: expiry,
      retryDelayMs: (job) => {
        calls.push(job);
        return job.kind === 'k' ? 0 : 2500;
      },
    });
    assert.equal(result.requeued, 2);
    assert.equal(result.failed, 1);
    assert.deepEqual(
      [...result.recovered].sort((a, b) => a.kind.localeCompare(b.kind)),
      [
        { kind: 'again', queue: 'default', failed: false },
        { kind: 'done', queue: 'default', failed: true },
        { kind: 'k', queue: 'default', failed: false },
      ],
    );
    assert.deepEqual(calls.map((c) => c.kind).sort(), ['again', 'done', 'k']);
    assert.equal(result.nextLeaseExpiryInMs, LEASE_MS, 'the lease still held, renewed at the sweep time');
    const again = await t.store.getJob(byKind('again').id);
    assert.equal(again?.status, 'SCHEDULED');
    assert.equal(again?.version, 2);
    assert.equal(again?.runAt.getTime(), expiry.getTime() + 2500);
    assert.match(again?.lastError ?? '', /lease expired at .*: the instance w1 stopped heartbeating/);
    assert.equal((await t.store.getJob(byKind('k').id))?.status, 'PENDING', 'no delay: due at once');
    const done = await t.store.getJob(byKind('done').id);
    assert.equal(done?.status, 'FAILED');
    assert.equal(done?.finishedAt?.getTime(), expiry.getTime());
    assert.equal((await t.store.getJob(byKind('alive').id))?.status, 'RUNNING');
  });

  it('a sweep handles at most its limit of rows per call', async () => {
    await t.store.enqueueMany(Array.from({ length: 7 }, () => ({ kind: 'k' })));
    await t.claim(7);
    const expiry = later(await t.store.now(), LEASE_MS + 1000);
    const passes: number[] = [];
    const nextExpiries: Array<number | null> = [];
    for (;;) {
      const { requeued, failed, nextLeaseExpiryInMs } = await t.store.sweepExpired({
        retryDelayMs: () => 0,
        now: expiry,
        limit: 3,
      });
      passes.push(requeued + failed);
      nextExpiries.push(nextLeaseExpiryInMs);
      if (requeued + failed < 3) break;
    }
    assert.deepEqual(passes, [3, 3, 1]);
    assert.deepEqual(nextExpiries, [0, 0, null], 'a full page says call again; the last, no lease is held');
  });

  it('a sweep never overwrites a job its owner completed after the lease ran out', async () => {
    await t.store.enqueue({ kind: 'k' });
    const [job] = await t.claim(1);
    assert.ok(job);
    const expiry = later((await t.store.getJob(job.id))?.leaseExpiresAt ?? new Date(), 1);
    // The owner is late but still the current attempt: its outcome counts.
    await t.store.complete([{ ...leaseOf(job), resultJson: '"late but mine"' }], expiry);
    assert.deepEqual(await t.store.sweepExpired({ retryDelayMs: () => 0, now: expiry }), {
      requeued: 0,
      failed: 0,
      isolated: 0,
      recovered: [],
      nextLeaseExpiryInMs: null,
    });
    const row = await t.store.getJob(job.id);
    assert.equal(row?.status, 'SUCCEEDED');
    assert.equal(row?.result, 'late but mine');
    assert.equal(row?.version, job.version);
  });

  it('release gives a running job back at once, with a new version and the attempt refunded', async () => {
    await t.store.enqueue({ kind: 'k' });
    const [job] = await t.claim(1);
    assert.ok(job);
    assert.deepEqual(await t.store.release([leaseOf(job)]), [leaseOf(job)]);
    const row = await t.store.getJob(job.id);
    assert.equal(row?.status, 'PENDING');
    assert.equal(row?.attempts, 0);
    assert.equal(row?.version, job.version + 1);
    assert.equal(row?.leaseExpiresAt, null);
    const [again] = await t.claim(1);
    assert.equal(again?.id, job.id);
    assert.equal(again?.attempt, 1);
  });
});

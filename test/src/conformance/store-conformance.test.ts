// Every case runs on SQLite and on PostgreSQL: the store contract is one, whatever the dialect.
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createStore, type Store } from '@nudge/store';
import { DIALECTS, createTestDatabase, openStore, rawQuery, type TestDatabase } from '../helpers/index.js';

const LEASE_MS = 10_000;
const later = (date: Date, ms: number): Date => new Date(date.getTime() + ms);

for (const dialect of DIALECTS) {
  describe(`store conformance: ${dialect}`, () => {
    let db: TestDatabase;
    let store: Store;

    beforeEach(async () => {
      db = await createTestDatabase(dialect);
      store = await openStore(db);
    });
    afterEach(async () => {
      await store.close();
      await db.drop();
    });

    const claim = (limit: number, now?: Date, workerId = 'w1') =>
      store.claim({ workerId, limit, leaseMs: LEASE_MS, ...(now ? { now } : {}) });

    it('a plain INSERT of kind and payload makes a runnable PENDING job', async () => {
      await rawQuery(db, `INSERT INTO nudge_jobs (kind, payload) VALUES ('echo', '{"n": 1}')`);
      const [row] = await rawQuery<{ id: number }>(db, 'SELECT id FROM nudge_jobs');
      const job = await store.getJob(Number(row?.id));
      assert.ok(job);
      assert.equal(job.status, 'PENDING');
      assert.deepEqual(job.payload, { n: 1 });
      assert.equal(job.attempts, 0);
      assert.equal(job.maxAttempts, 5);
      assert.equal(job.version, 0);
      assert.equal(job.priority, 0);
      const dbNow = await store.now();
      assert.ok(
        Math.abs(job.runAt.getTime() - dbNow.getTime()) < 5000,
        'run_at defaults to the database clock',
      );
      const [claimed] = await claim(10);
      assert.equal(claimed?.id, job.id);
      assert.equal(claimed?.status, 'RUNNING');
    });

    it('claims in (priority, run_at, id) order and never a job that is not due', async () => {
      const now = await store.now();
      const a = await store.enqueue({ kind: 'k', priority: 5, runAt: later(now, -3000) });
      const b = await store.enqueue({ kind: 'k', priority: -1, runAt: later(now, -1000) });
      const c = await store.enqueue({ kind: 'k', priority: 5, runAt: later(now, -5000) });
      const d = await store.enqueue({ kind: 'k', priority: 5, runAt: later(now, -5000) });
      const future = await store.enqueue({ kind: 'k', priority: -100, runAt: later(now, 60_000) });
      const claimed = await claim(10, now);
      assert.deepEqual(
        claimed.map((j) => j.id),
        [b.id, c.id, d.id, a.id],
      );
      assert.equal((await store.getJob(future.id))?.status, 'PENDING');
    });

    it('claims at most the limit and sets owner, attempt, version and a database-clock lease', async () => {
      await store.enqueueMany(Array.from({ length: 5 }, (_, i) => ({ kind: 'k', payload: { i } })));
      const first = await claim(2);
      assert.equal(first.length, 2);
      for (const job of first) {
        assert.equal(job.status, 'RUNNING');
        assert.equal(job.attempts, 1);
        assert.equal(job.version, 1);
        assert.equal(job.claimedBy, 'w1');
        assert.ok(job.startedAt && job.leaseExpiresAt);
        assert.equal(job.leaseExpiresAt.getTime() - job.startedAt.getTime(), LEASE_MS);
      }
      assert.equal((await claim(2)).length, 2);
      assert.equal((await claim(2)).length, 1);
      assert.equal((await claim(2)).length, 0);
    });

    it('two claimers on separate connections never claim the same job', async () => {
      const other = await openStore(db);
      try {
        await store.enqueueMany(Array.from({ length: 60 }, () => ({ kind: 'k' })));
        const seen: number[] = [];
        const drain = async (s: Store, worker: string): Promise<void> => {
          for (;;) {
            const jobs = await s.claim({ workerId: worker, limit: 3, leaseMs: LEASE_MS });
            if (jobs.length === 0) return;
            seen.push(...jobs.map((j) => j.id));
          }
        };
        await Promise.all([drain(store, 'a'), drain(other, 'b'), drain(store, 'c'), drain(other, 'd')]);
        assert.equal(seen.length, 60);
        assert.equal(new Set(seen).size, 60);
      } finally {
        await other.close();
      }
    });

    it('fences stale attempts: complete, fail, heartbeat and release of an old version change nothing', async () => {
      await store.enqueue({ kind: 'k' });
      const [stale] = await claim(1);
      assert.ok(stale);
      const expiredAt = later(stale.leaseExpiresAt ?? new Date(), 1);
      assert.deepEqual(await store.sweepExpired({ retryDelayMs: () => 0, now: expiredAt }), {
        requeued: 1,
        failed: 0,
      });
      const [current] = await claim(1, later(expiredAt, 1), 'w2');
      assert.ok(current);
      assert.equal(current.version, stale.version + 2);
      const staleLease = { id: stale.id, version: stale.version };
      assert.deepEqual(await store.heartbeat([staleLease], LEASE_MS), []);
      assert.deepEqual(await store.complete([{ ...staleLease, result: 'stale' }]), []);
      assert.deepEqual(await store.fail([{ ...staleLease, error: 'stale', retryDelayMs: 0 }]), []);
      assert.deepEqual(await store.release([staleLease]), []);
      const row = await store.getJob(stale.id);
      assert.equal(row?.status, 'RUNNING');
      assert.equal(row?.claimedBy, 'w2');
      assert.equal(row?.result, null);
      const lease = { id: current.id, version: current.version };
      assert.deepEqual(await store.complete([{ ...lease, result: { ok: true } }]), [lease]);
      assert.deepEqual((await store.getJob(stale.id))?.result, { ok: true });
    });

    it('heartbeat extends only current leases, from the database clock', async () => {
      await store.enqueueMany([{ kind: 'k' }, { kind: 'k' }]);
      const [a, b] = await claim(2);
      assert.ok(a && b);
      const now = later(await store.now(), 5000);
      const held = await store.heartbeat(
        [
          { id: a.id, version: a.version },
          { id: b.id, version: b.version + 7 },
        ],
        LEASE_MS,
        now,
      );
      assert.deepEqual(held, [{ id: a.id, version: a.version }]);
      assert.equal((await store.getJob(a.id))?.leaseExpiresAt?.getTime(), now.getTime() + LEASE_MS);
      assert.equal((await store.getJob(b.id))?.leaseExpiresAt?.getTime(), b.leaseExpiresAt?.getTime());
    });

    it('records success with its result, and failure as a retry with backoff or as FAILED', async () => {
      await store.enqueueMany([
        { kind: 'ok' },
        { kind: 'retry', maxAttempts: 3 },
        { kind: 'last', maxAttempts: 1 },
        { kind: 'permanent', maxAttempts: 9 },
      ]);
      const jobs = await claim(4);
      const byKind = new Map(jobs.map((j) => [j.kind, j]));
      const lease = (kind: string) => {
        const job = byKind.get(kind);
        assert.ok(job);
        return { id: job.id, version: job.version };
      };
      const now = await store.now();
      await store.complete([{ ...lease('ok'), result: [1, 'two', { three: 3 }] }], now);
      const outcomes = await store.fail(
        [
          { ...lease('retry'), error: 'boom', retryDelayMs: 4000 },
          { ...lease('last'), error: 'out of tries', retryDelayMs: 4000 },
          { ...lease('permanent'), error: 'bad payload', retryDelayMs: 4000, permanent: true },
        ],
        now,
      );
      assert.deepEqual(
        new Map(outcomes.map((o) => [o.id, o.status])),
        new Map([
          [lease('retry').id, 'PENDING'],
          [lease('last').id, 'FAILED'],
          [lease('permanent').id, 'FAILED'],
        ]),
      );
      const ok = await store.getJob(lease('ok').id);
      assert.equal(ok?.status, 'SUCCEEDED');
      assert.deepEqual(ok?.result, [1, 'two', { three: 3 }]);
      assert.equal(ok?.finishedAt?.getTime(), now.getTime());
      const retry = await store.getJob(lease('retry').id);
      assert.equal(retry?.status, 'PENDING');
      assert.equal(retry?.lastError, 'boom');
      assert.equal(retry?.runAt.getTime(), now.getTime() + 4000);
      assert.equal(retry?.finishedAt, null);
      assert.equal((await claim(5, later(now, 3999))).length, 0, 'not due before its backoff');
      assert.equal((await claim(5, later(now, 4000))).length, 1);
      const last = await store.getJob(lease('last').id);
      assert.equal(last?.status, 'FAILED');
      assert.equal(last?.lastError, 'out of tries');
      assert.equal((await store.getJob(lease('permanent').id))?.status, 'FAILED');
    });

    it('sweeps expired leases: back to PENDING with backoff, or FAILED when attempts are used up', async () => {
      await store.enqueueMany([
        { kind: 'again', maxAttempts: 2 },
        { kind: 'done', maxAttempts: 1 },
        { kind: 'alive', maxAttempts: 1 },
      ]);
      const jobs = await claim(3);
      const alive = jobs.find((j) => j.kind === 'alive');
      assert.ok(alive);
      const expiry = later(jobs[0]?.leaseExpiresAt ?? new Date(), 1);
      await store.heartbeat([{ id: alive.id, version: alive.version }], LEASE_MS, expiry);
      const calls: Array<{ kind: string; attempts: number }> = [];
      const result = await store.sweepExpired({
        now: expiry,
        retryDelayMs: (job) => {
          calls.push(job);
          return 2500;
        },
      });
      assert.deepEqual(result, { requeued: 1, failed: 1 });
      assert.deepEqual(
        calls.sort((a, b) => a.kind.localeCompare(b.kind)),
        [
          { kind: 'again', attempts: 1 },
          { kind: 'done', attempts: 1 },
        ],
      );
      const again = await store.getJob(jobs.find((j) => j.kind === 'again')?.id ?? -1);
      assert.equal(again?.status, 'PENDING');
      assert.equal(again?.version, 2);
      assert.equal(again?.runAt.getTime(), expiry.getTime() + 2500);
      assert.match(again?.lastError ?? '', /lease expired .* while held by w1/);
      const done = await store.getJob(jobs.find((j) => j.kind === 'done')?.id ?? -1);
      assert.equal(done?.status, 'FAILED');
      assert.equal(done?.finishedAt?.getTime(), expiry.getTime());
      assert.equal((await store.getJob(alive.id))?.status, 'RUNNING');
    });

    it('a sweep never overwrites a job its owner completed after the lease ran out', async () => {
      await store.enqueue({ kind: 'k' });
      const [job] = await claim(1);
      assert.ok(job);
      const expiry = later(job.leaseExpiresAt ?? new Date(), 1);
      // The owner is late but still the current attempt: its outcome counts.
      await store.complete([{ id: job.id, version: job.version, result: 'late but mine' }], expiry);
      assert.deepEqual(await store.sweepExpired({ retryDelayMs: () => 0, now: expiry }), {
        requeued: 0,
        failed: 0,
      });
      const row = await store.getJob(job.id);
      assert.equal(row?.status, 'SUCCEEDED');
      assert.equal(row?.result, 'late but mine');
      assert.equal(row?.version, job.version);
    });

    it('schedules by the database clock', async () => {
      const dbNow = await store.now();
      const job = await store.enqueue({ kind: 'k', runAt: later(dbNow, 60_000) });
      assert.equal((await claim(1)).length, 0, 'due in a minute by the database clock');
      assert.equal((await claim(1, later(dbNow, 59_000))).length, 0);
      const [claimed] = await claim(1, later(dbNow, 60_000));
      assert.equal(claimed?.id, job.id);
    });

    it('release gives a running job back at once, with a new version and the attempt refunded', async () => {
      await store.enqueue({ kind: 'k' });
      const [job] = await claim(1);
      assert.ok(job);
      assert.deepEqual(await store.release([{ id: job.id, version: job.version }]), [
        { id: job.id, version: job.version },
      ]);
      const row = await store.getJob(job.id);
      assert.equal(row?.status, 'PENDING');
      assert.equal(row?.attempts, 0);
      assert.equal(row?.version, job.version + 1);
      assert.equal(row?.leaseExpiresAt, null);
      const [again] = await claim(1);
      assert.equal(again?.id, job.id);
      assert.equal(again?.attempts, 1);
    });

    it('counts jobs by status, every status present', async () => {
      assert.deepEqual(await store.countByStatus(), {
        PENDING: 0,
        RUNNING: 0,
        SUCCEEDED: 0,
        FAILED: 0,
        CANCELLED: 0,
      });
      await store.enqueueMany([{ kind: 'a' }, { kind: 'b' }, { kind: 'c' }]);
      const [job] = await claim(1);
      assert.ok(job);
      await store.complete([{ id: job.id, version: job.version, result: null }]);
      await claim(1);
      assert.deepEqual(await store.countByStatus(), {
        PENDING: 1,
        RUNNING: 1,
        SUCCEEDED: 1,
        FAILED: 0,
        CANCELLED: 0,
      });
    });

    it('enqueueMany returns jobs in input order and is all or nothing', async () => {
      const jobs = await store.enqueueMany(
        Array.from({ length: 1500 }, (_, i) => ({ kind: 'k', payload: { i } })),
      );
      assert.deepEqual(
        jobs.map((j) => (j.payload as { i: number }).i),
        Array.from({ length: 1500 }, (_, i) => i),
      );
      await assert.rejects(store.enqueueMany([{ kind: 'fine' }, { kind: 'bad', maxAttempts: 0 }]));
      const [count] = await rawQuery<{ n: number | string }>(db, 'SELECT count(*) AS n FROM nudge_jobs');
      assert.equal(Number(count?.n), 1500);
    });

    it('migrations are idempotent, safe to run concurrently, and refuse a newer schema', async () => {
      assert.deepEqual(await store.migrate(), []);
      const state = await store.schemaState();
      assert.equal(state.applied, state.latest);
      const fresh = await createTestDatabase(dialect);
      const [a, b] = [createStore(fresh.url), createStore(fresh.url)];
      try {
        const applied = await Promise.all([a.migrate(), b.migrate()]);
        assert.deepEqual(applied.flat(), [1], 'exactly one process applies migration 1');
        assert.deepEqual(await a.schemaState(), state);
      } finally {
        await a.close();
        await b.close();
        await fresh.drop();
      }
      await rawQuery(db, `INSERT INTO nudge_migrations (version, name) VALUES (999, '0999_from_the_future')`);
      await assert.rejects(store.migrate(), { code: 'SCHEMA_TOO_NEW' });
    });
  });
}

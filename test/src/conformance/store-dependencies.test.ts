// Job dependencies on both dialects: a job that depends on others waits (WAITING) until each has
// finished, and the write that finishes the last one releases it (or cancels it) in the same
// transaction, whichever path that write is.
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type pg from 'pg';
import { NudgeError, type JobStatus } from '@nudge/core';
import type { Store } from '@nudge/store';
import {
  createMigratedDatabase,
  openStore,
  testPool,
  waitUntil,
  type TestDatabase,
} from '../helpers/index.js';
import { describeStore, later, leaseOf, type StoreCase } from './store-fixture.js';

async function statusOf(t: StoreCase, id: number): Promise<JobStatus | undefined> {
  return (await t.store.getJob(id))?.status;
}

/** Claims job `id` (of kind `k`) and returns its lease; the other jobs claimed are released. */
async function claimJob(t: StoreCase, id: number, kind = 'k') {
  const claimed = await t.claim(1000, { kinds: [kind] });
  const job = claimed.find((c) => c.id === id);
  assert.ok(job, `job ${id} was claimed`);
  await t.store.release(claimed.filter((c) => c.id !== id).map(leaseOf));
  return leaseOf(job);
}

async function succeed(t: StoreCase, id: number, result: unknown = null, kind = 'k'): Promise<void> {
  const lease = await claimJob(t, id, kind);
  assert.equal((await t.store.complete([{ ...lease, resultJson: JSON.stringify(result) }])).length, 1);
}

async function failForGood(t: StoreCase, id: number, kind = 'k'): Promise<void> {
  const lease = await claimJob(t, id, kind);
  await t.store.fail([{ ...lease, error: 'boom', retryDelayMs: 0, permanent: true }]);
}

describeStore('job dependencies', (t) => {
  it('a chain runs link by link: each job waits for the one before it', async () => {
    const [a, b, c] = await t.store.enqueueMany([
      { kind: 'k' },
      { kind: 'k', dependsOn: [{ index: 0 }] },
      { kind: 'k', dependsOn: [{ index: 1 }] },
    ]);
    assert.ok(a && b && c);
    assert.deepEqual([a.status, b.status, c.status], ['PENDING', 'WAITING', 'WAITING']);
    assert.deepEqual(b.dependsOn, [a.id]);
    assert.equal(b.onDependencyFailure, 'cancel');
    assert.deepEqual(await t.claim(10, { kinds: ['k'] }).then((jobs) => jobs.map((j) => j.id)), [a.id]);
    const lease = { id: a.id, version: 1 };
    await t.store.complete([{ ...lease, resultJson: '"a"' }]);
    assert.equal(await statusOf(t, b.id), 'PENDING', 'the outcome of its dependency released it');
    assert.equal(await statusOf(t, c.id), 'WAITING');
    await succeed(t, b.id);
    assert.equal(await statusOf(t, c.id), 'PENDING');
  });

  it('fan-in: a job waits for every dependency and reads their outcomes', async () => {
    const jobs = await t.store.enqueueMany([
      { kind: 'k' },
      { kind: 'k' },
      { kind: 'k' },
      { kind: 'k', dependsOn: [{ index: 0 }, { index: 1 }, { index: 2 }] },
    ]);
    const [p0, p1, p2, merge] = jobs;
    assert.ok(p0 && p1 && p2 && merge);
    assert.deepEqual(merge.dependsOn, [p0.id, p1.id, p2.id], 'in the order given');
    await succeed(t, p1.id, { part: 1 });
    await succeed(t, p0.id, { part: 0 });
    assert.equal(await statusOf(t, merge.id), 'WAITING');
    const blocked = await t.store.dependencyOutcomes(merge.dependsOn, { results: false });
    assert.deepEqual(
      [...blocked].filter(([, o]) => o.status !== 'SUCCEEDED').map(([id]) => id),
      [p2.id],
    );
    await succeed(t, p2.id, { part: 2 });
    assert.equal(await statusOf(t, merge.id), 'PENDING');
    const outcomes = await t.store.dependencyOutcomes(merge.dependsOn, { results: true });
    assert.deepEqual(
      merge.dependsOn.map((id) => outcomes.get(id)),
      [0, 1, 2].map((part) => ({ status: 'SUCCEEDED', result: { part } })),
    );
  });

  it('a failed dependency cancels the waiting job, and the cancel cascades down the chain', async () => {
    const [a, b, c, d] = await t.store.enqueueMany([
      { kind: 'k' },
      { kind: 'k', dependsOn: [{ index: 0 }] },
      { kind: 'k', dependsOn: [{ index: 1 }] },
      { kind: 'k', dependsOn: [{ index: 2 }], onDependencyFailure: 'run' },
    ]);
    assert.ok(a && b && c && d);
    await failForGood(t, a.id);
    const b2 = await t.store.getJob(b.id);
    const c2 = await t.store.getJob(c.id);
    assert.equal(b2?.status, 'CANCELLED');
    assert.equal(b2?.lastError, `dependency ${a.id} ended FAILED`);
    assert.ok(b2?.finishedAt);
    assert.equal(c2?.status, 'CANCELLED');
    assert.equal(c2?.lastError, `dependency ${b.id} ended CANCELLED`);
    assert.equal(await statusOf(t, d.id), 'PENDING', "'run' runs once its dependency finished, however");
  });

  it("'run' runs the job anyway once every dependency finished, failed or not", async () => {
    const [a, b, c] = await t.store.enqueueMany([
      { kind: 'k' },
      { kind: 'k' },
      { kind: 'k', dependsOn: [{ index: 0 }, { index: 1 }], onDependencyFailure: 'run' },
    ]);
    assert.ok(a && b && c);
    await failForGood(t, a.id);
    assert.equal(await statusOf(t, c.id), 'WAITING', 'still waits for b');
    assert.equal((await t.store.cancelJob(b.id)).outcome, 'changed');
    assert.equal(await statusOf(t, c.id), 'PENDING');
  });

  it('a dependency that already finished counts at once', async () => {
    const [done, failed] = await t.store.enqueueMany([{ kind: 'k' }, { kind: 'k' }]);
    assert.ok(done && failed);
    await succeed(t, done.id);
    await failForGood(t, failed.id);
    const ready = await t.store.enqueue({ kind: 'k', dependsOn: [done.id] });
    assert.equal(ready.status, 'PENDING');
    const now = await t.store.now();
    const later1 = await t.store.enqueue({ kind: 'k', dependsOn: [done.id], runAt: later(now, 60_000) });
    assert.equal(later1.status, 'SCHEDULED');
    const cancelled = await t.store.enqueue({ kind: 'k', dependsOn: [done.id, failed.id] });
    assert.equal(cancelled.status, 'CANCELLED');
    assert.equal(cancelled.lastError, `dependency ${failed.id} ended FAILED`);
    assert.ok(cancelled.finishedAt);
    const anyway = await t.store.enqueue({ kind: 'k', dependsOn: [failed.id], onDependencyFailure: 'run' });
    assert.equal(anyway.status, 'PENDING');
  });

  it('a released job whose own start is ahead becomes SCHEDULED', async () => {
    const now = await t.store.now();
    const a = await t.store.enqueue({ kind: 'k' });
    const b = await t.store.enqueue({ kind: 'k', dependsOn: [a.id], runAt: later(now, 3_600_000) });
    assert.equal(b.status, 'WAITING');
    await succeed(t, a.id);
    assert.equal(await statusOf(t, b.id), 'SCHEDULED');
  });

  it('refuses an unknown dependency or a later index, and writes nothing', async () => {
    const a = await t.store.enqueue({ kind: 'k' });
    await assert.rejects(
      t.store.enqueueMany([{ kind: 'k' }, { kind: 'k', dependsOn: [a.id, 987_654] }]),
      (error: unknown) =>
        error instanceof NudgeError &&
        error.code === 'DEPENDENCY_NOT_FOUND' &&
        error.message.includes('/jobs/1/dependsOn') &&
        error.message.includes('987654'),
    );
    await assert.rejects(t.store.enqueue({ kind: 'k', dependsOn: [987_654] }), {
      code: 'DEPENDENCY_NOT_FOUND',
    });
    await assert.rejects(
      t.store.enqueueMany([{ kind: 'k', dependsOn: [{ index: 0 }] }, { kind: 'k' }]),
      (error: unknown) =>
        error instanceof NudgeError &&
        error.code === 'INVALID_REQUEST' &&
        /\/jobs\/0\/dependsOn\/0 refers to job 0/.test(error.message),
    );
    await assert.rejects(t.store.enqueue({ kind: 'k', dependsOn: [{ index: 0 }] }), {
      code: 'INVALID_REQUEST',
    });
    const all = await t.store.listJobs({ limit: 100 });
    assert.deepEqual(
      all.map((job) => job.id),
      [a.id],
      'nothing of a refused batch was written',
    );
    assert.equal((await t.store.getJob(a.id))?.status, 'PENDING');
  });

  it('every path that finishes a dependency releases its dependents: sweep, unhandled kind, cancel', async () => {
    const now = await t.store.now();
    const [swept, orphan, cancelled] = await t.store.enqueueMany([
      { kind: 'done', maxAttempts: 1 },
      { kind: 'orphan' },
      // Not due, so the pass that fails jobs of unhandled kinds leaves it alone.
      { kind: 'k', runAt: later(now, 86_400_000) },
    ]);
    assert.ok(swept && orphan && cancelled);
    const deps = await t.store.enqueueMany(
      [swept, orphan, cancelled].flatMap((dep) => [
        { kind: 'k', dependsOn: [dep.id], onDependencyFailure: 'run' as const },
        { kind: 'k', dependsOn: [dep.id] },
      ]),
    );
    assert.ok(deps.every((job) => job.status === 'WAITING'));
    // The lease of the last attempt expires: the sweep fails it.
    await t.claim(1, { kinds: ['done'] });
    const sweep = await t.store.sweepExpired({ retryDelayMs: () => 0, now: later(now, 3_600_000) });
    assert.equal(sweep.failed, 1);
    const statuses = () => Promise.all(deps.map((job) => statusOf(t, job.id)));
    assert.deepEqual((await statuses()).slice(0, 2), ['PENDING', 'CANCELLED']);
    // No live instance handles the kind (the released jobs of kind k fail too: nobody handles k).
    await t.store.failUnhandledKinds({ graceMs: 0, instanceTtlMs: 1, now: later(now, 60_000) });
    assert.equal(await statusOf(t, orphan.id), 'FAILED');
    assert.deepEqual((await statuses()).slice(2, 4), ['PENDING', 'CANCELLED']);
    await t.store.cancelJob(cancelled.id);
    assert.deepEqual((await statuses()).slice(4), ['PENDING', 'CANCELLED']);
  });

  it('a waiting job can be cancelled, and its dependents with it', async () => {
    const [a, b, c] = await t.store.enqueueMany([
      { kind: 'k' },
      { kind: 'k', dependsOn: [{ index: 0 }] },
      { kind: 'k', dependsOn: [{ index: 1 }] },
    ]);
    assert.ok(a && b && c);
    const result = await t.store.cancelJob(b.id);
    assert.ok(result.outcome === 'changed');
    assert.equal(result.previous, 'WAITING');
    assert.equal(await statusOf(t, c.id), 'CANCELLED');
    await succeed(t, a.id);
    assert.equal(await statusOf(t, b.id), 'CANCELLED', 'a cancelled job stays cancelled');
  });

  it('retention may delete a finished dependency: the dependent was released already', async () => {
    const a = await t.store.enqueue({ kind: 'k' });
    const b = await t.store.enqueue({ kind: 'k', dependsOn: [a.id] });
    await succeed(t, a.id);
    assert.equal(await statusOf(t, b.id), 'PENDING');
    const far = later(await t.store.now(), 86_400_000);
    assert.ok(
      (await t.store.pruneFinished({
        status: 'SUCCEEDED',
        kind: 'k',
        olderThanMs: 0,
        limit: 100,
        now: far,
      })) >= 1,
    );
    assert.equal(await t.store.getJob(a.id), undefined);
    const outcomes = await t.store.dependencyOutcomes(b.dependsOn, { results: true });
    assert.equal(outcomes.size, 0, 'a deleted dependency is absent');
    await succeed(t, b.id);
    await assert.rejects(t.store.enqueue({ kind: 'k', dependsOn: [a.id] }), { code: 'DEPENDENCY_NOT_FOUND' });
  });

  it('a dependency finishing while its dependent is enqueued never leaves the dependent waiting', async () => {
    for (let round = 0; round < 25; round += 1) {
      const a = await t.store.enqueue({ kind: 'k' });
      const lease = await claimJob(t, a.id);
      const [, dependent] = await Promise.all([
        t.store.complete([{ ...lease, resultJson: 'null' }]),
        t.store.enqueue({ kind: 'ok', dependsOn: [a.id] }),
      ]);
      assert.equal(await statusOf(t, dependent.id), 'PENDING', `round ${round}`);
    }
  });
});

/** Waits until some session of the test database waits for a row lock. */
async function lockWaitSeen(pool: pg.Pool): Promise<void> {
  await waitUntil(
    async () => {
      const { rows } = await pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      return (rows[0]?.n ?? 0) > 0 ? true : undefined;
    },
    15_000,
    10,
    'a session waiting for a row lock',
  );
}

const FINISH = `UPDATE nudge_jobs SET status = 'SUCCEEDED', finished_at = now() WHERE id = $1`;

describe('store conformance, job dependencies under concurrent transactions: postgres', () => {
  let db: TestDatabase | undefined;
  let store: Store | undefined;
  let pool: pg.Pool | undefined;
  beforeEach(async () => {
    db = await createMigratedDatabase('postgres');
    store = await openStore(db);
    pool = testPool(db.url);
  });
  afterEach(async () => {
    await pool?.end();
    await store?.close();
    await db?.drop();
  });

  it('an enqueue waits for a dependency being finished, then sees it finished', async () => {
    assert.ok(store && pool);
    const a = await store.enqueue({ kind: 'k' });
    const finisher = await pool.connect();
    try {
      await finisher.query('BEGIN');
      await finisher.query(FINISH, [a.id]);
      // Without the lock the enqueue would read a as PENDING, store the job WAITING, and the
      // finishing transaction (which saw no dependent) would never release it.
      const enqueued = store.enqueue({ kind: 'k', dependsOn: [a.id] });
      await lockWaitSeen(pool);
      await finisher.query('COMMIT');
      const dependent = await enqueued;
      assert.equal(dependent.status, 'PENDING');
    } finally {
      finisher.release();
    }
  });

  it('a dependent enqueued after its finisher began is released PENDING, not SCHEDULED', async () => {
    assert.ok(store && pool);
    const a = await store.enqueue({ kind: 'k' });
    const finisher = await pool.connect();
    try {
      // The finisher's now() is fixed here, before the dependent exists.
      await finisher.query('BEGIN');
      await finisher.query('SELECT now()');
      await new Promise((resolve) => setTimeout(resolve, 20));
      const dependent = await store.enqueue({ kind: 'k', dependsOn: [a.id] });
      assert.equal(dependent.status, 'WAITING');
      await finisher.query(FINISH, [a.id]);
      await finisher.query('COMMIT');
      // Its run_at (the enqueue's now()) is after the finisher's now(), yet it is due: released
      // SCHEDULED, it would wait for the next promotion pass.
      assert.equal((await store.getJob(dependent.id))?.status, 'PENDING');
    } finally {
      finisher.release();
    }
  });

  it('two dependencies finishing in concurrent transactions release their dependent once', async () => {
    assert.ok(store && pool);
    const [a, b, d] = await store.enqueueMany([
      { kind: 'k' },
      { kind: 'k' },
      { kind: 'k', dependsOn: [{ index: 0 }, { index: 1 }] },
    ]);
    assert.ok(a && b && d);
    const first = await pool.connect();
    const second = await pool.connect();
    try {
      await first.query('BEGIN');
      await first.query(FINISH, [a.id]);
      await second.query('BEGIN');
      // Each transaction alone sees the other dependency unfinished; the trigger's lock on the
      // dependent makes the second read after the first committed.
      const finishing = second.query(FINISH, [b.id]);
      await lockWaitSeen(pool);
      await first.query('COMMIT');
      await finishing;
      await second.query('COMMIT');
      assert.equal((await store.getJob(d.id))?.status, 'PENDING');
    } finally {
      first.release();
      second.release();
    }
  });
});

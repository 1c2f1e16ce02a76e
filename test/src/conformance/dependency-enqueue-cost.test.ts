// What enqueueing a dependent costs its dependencies. Its reads are primary-key probes, as many
// on a table of 20,000 jobs as on one of a few (the store's planner settings, which price sorts
// out, once made the PostgreSQL lock read half the primary key per dependent). A dependency whose
// has_dependents is set is not written again by each new dependent. And on PostgreSQL an open
// enqueue holds no lock that a heartbeat or an outcome of its dependency waits on; a dependency
// that finished while the batch ran is seen at its end, and the dependent started.
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type pg from 'pg';
import { PG_PLANNER_OPTIONS } from '@nudge/store/statements';
import type { EnqueuedJob, EnqueueInput, JobLease, Store } from '@nudge/store';
import {
  createMigratedDatabase,
  explainEnqueue,
  jobRowsRead,
  openStore,
  rawQuery,
  dependencyEdges,
  testPool,
  waitUntil,
  type ExplainedStatement,
  type TestDatabase,
} from '../helpers/index.js';
import { describeStore, leaseOf, LEASE_MS, type StoreCase } from './store-fixture.js';

const FILLER = 20_000;

/** `count` finished jobs, then fresh statistics. */
async function fill(t: StoreCase, count: number): Promise<void> {
  await rawQuery(
    t.db,
    t.db.dialect === 'postgres'
      ? `INSERT INTO nudge_jobs (kind, status, finished_at) SELECT 'old', 'SUCCEEDED', now() FROM generate_series(1, ${count})`
      : `WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ${count})
         INSERT INTO nudge_jobs (kind, status, finished_at) SELECT 'old', 'SUCCEEDED', '2026-01-01T00:00:00.000Z' FROM g`,
  );
  await rawQuery(t.db, 'ANALYZE');
}

/** Rows of `nudge_jobs` each statement read (PostgreSQL). */
const rowsPerStatement = (statements: readonly ExplainedStatement[]): number[] =>
  statements.map((s) => (s.plan ? jobRowsRead(s.plan) : 0));

describeStore('the cost of enqueueing a dependent', (t) => {
  it('reads its dependencies by primary-key probes, as many at 20,000 jobs as at one', async () => {
    const small = await t.store.enqueue({ kind: 'k' });
    const job = (id: number) => [{ kind: 'k', dependsOn: [id] }];
    if (t.db.dialect === 'sqlite') {
      await fill(t, FILLER);
      const last = await t.store.enqueue({ kind: 'k' });
      const details = (await explainEnqueue(t.db, job(last.id))).flatMap((s) => s.details ?? []);
      const reads = details.filter((d) => /\bnudge_jobs\b/.test(d));
      assert.ok(reads.length > 0, `the plan reads nudge_jobs: ${JSON.stringify(details)}`);
      for (const read of reads) {
        assert.match(
          read,
          /^SEARCH nudge_jobs USING (INTEGER PRIMARY KEY|INDEX)/,
          `a probe, not a scan: ${read}`,
        );
      }
      return;
    }
    for (const options of [PG_PLANNER_OPTIONS, undefined]) {
      const before = rowsPerStatement(await explainEnqueue(t.db, job(small.id), options));
      assert.ok(
        before.every((rows) => rows <= 2),
        `at most two probes per dependency and statement: ${before.join(', ')}`,
      );
      if (options === PG_PLANNER_OPTIONS) await fill(t, FILLER);
      // A dependency at the end of the primary key: an ordered scan of it reads every job first.
      const last = await t.store.enqueue({ kind: 'k' });
      const statements = await explainEnqueue(t.db, job(last.id), options);
      assert.deepEqual(
        rowsPerStatement(statements),
        before,
        `rows read per statement at ${FILLER} jobs as at one (${options ?? "the server's planner settings"}): ${statements.map((s) => s.sql).join(' | ')}`,
      );
    }
  });

  it('does not write a dependency again once it has dependents', async () => {
    const dependency = await t.store.enqueue({ kind: 'k' });
    await t.store.enqueue({ kind: 'k', dependsOn: [dependency.id] });
    const version = async (): Promise<string> => {
      if (t.db.dialect === 'postgres') {
        const [row] = await rawQuery<{ v: string }>(
          t.db,
          'SELECT xmin::text AS v FROM nudge_jobs WHERE id = ?',
          [dependency.id],
        );
        return row?.v ?? 'gone';
      }
      const [row] = await rawQuery<{ n: number }>(
        t.db,
        'SELECT count(*) AS n FROM test_updates WHERE id = ?',
        [dependency.id],
      );
      return String(row?.n);
    };
    if (t.db.dialect === 'sqlite') {
      await rawQuery(t.db, 'CREATE TABLE test_updates (id INTEGER NOT NULL)');
      await rawQuery(
        t.db,
        'CREATE TRIGGER test_updates AFTER UPDATE ON nudge_jobs BEGIN INSERT INTO test_updates VALUES (NEW.id); END',
      );
    }
    const written = await version();
    await t.store.enqueueMany(Array.from({ length: 50 }, () => ({ kind: 'k', dependsOn: [dependency.id] })));
    await t.store.enqueue({ kind: 'k', dependsOn: [dependency.id] });
    assert.equal(await version(), written, 'the dependency row is the version the first dependent wrote');
    const [row] = await rawQuery<{ d: unknown }>(
      t.db,
      'SELECT has_dependents AS d FROM nudge_jobs WHERE id = ?',
      [dependency.id],
    );
    assert.ok(row?.d === true || row?.d === 1, 'has_dependents is set');
  });
});

/** Resolves with `promise`'s value, or with `'blocked'` when it takes longer than `ms`. */
const within = <T>(promise: Promise<T>, ms: number): Promise<T | 'blocked'> =>
  Promise.race([promise, new Promise<'blocked'>((resolve) => setTimeout(() => resolve('blocked'), ms))]);

describe('an open enqueue of a dependent and its running dependency: postgres', () => {
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

  /**
   * Claims a new job `k` (the dependency), then enqueues `jobs(dependency id)` followed by a job
   * whose key another producer holds uncommitted: the batch waits on it after it has read the
   * dependency and written its dependents. Runs `during(lease)` meanwhile, then commits the
   * producer's job; answers what `during` answered and the batch's jobs.
   */
  async function duringOpenBatch<T>(
    jobs: (dependency: number) => EnqueueInput[],
    during: (lease: JobLease) => Promise<T>,
  ): Promise<{ during: T; jobs: EnqueuedJob[] }> {
    assert.ok(store && pool);
    const s = store;
    const p = pool;
    const dependency = await s.enqueue({ kind: 'k' });
    const [claimed] = await s.claim({
      workerId: 'w1',
      leaseMs: LEASE_MS,
      groups: [{ kinds: ['k'], limit: 1 }],
    });
    assert.equal(claimed?.id, dependency.id);
    const producer = await p.connect();
    try {
      await producer.query('BEGIN');
      await producer.query(`INSERT INTO nudge_jobs (kind, idempotency_key) VALUES ('k', 'held')`);
      const enqueued = s.enqueueMany([...jobs(dependency.id), { kind: 'k', idempotencyKey: 'held' }]);
      enqueued.catch(() => undefined); // awaited below, after the producer commits
      await waitUntil(
        async () => {
          const { rows } = await p.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity
              WHERE datname = current_database() AND wait_event_type = 'Lock'`,
          );
          return (rows[0]?.n ?? 0) > 0 ? true : undefined;
        },
        15_000,
        10,
        'the batch waiting on the held key',
      );
      let answer: T;
      try {
        answer = await during(leaseOf(claimed));
      } finally {
        await producer.query('COMMIT');
      }
      return { during: answer, jobs: await enqueued };
    } finally {
      producer.release();
    }
  }

  it('stores a long dependency list without compressing it (pglz was most of the insert)', async () => {
    assert.ok(db);
    const [column] = await rawQuery<{ storage: string }>(
      db,
      `SELECT attstorage AS storage FROM pg_attribute
        WHERE attrelid = 'nudge_jobs'::regclass AND attname = 'depends_on'`,
    );
    assert.equal(column?.storage, 'e', 'EXTERNAL: out of line, uncompressed');
  });

  it('a heartbeat and the outcome of the dependency do not wait for the enqueue to commit', async () => {
    assert.ok(store && db);
    const s = store;
    const { during, jobs } = await duringOpenBatch(
      (id) => [{ kind: 'k', dependsOn: [id] }],
      async (lease) => ({
        heartbeat: await within(s.heartbeat([lease], LEASE_MS), 3000),
        completed: await within(s.complete([{ ...lease, resultJson: 'null' }]), 3000),
      }),
    );
    assert.notEqual(during.heartbeat, 'blocked', 'the heartbeat did not wait for the enqueue');
    assert.notEqual(during.completed, 'blocked', 'the outcome did not wait for the enqueue');
    assert.equal(during.completed.length, 1);
    const [dependent] = jobs;
    assert.ok(dependent);
    // The outcome could not see the dependent's edges; the batch saw the outcome at its end.
    assert.equal(dependent.status, 'PENDING');
    assert.equal((await s.getJob(dependent.id))?.status, 'PENDING');
    assert.deepEqual(await dependencyEdges(db), [], 'the started job left the dependents index');
  });

  it('a dependency that failed while the batch ran cancels its dependent, and the cancel cascades', async () => {
    assert.ok(store);
    const s = store;
    const { during, jobs } = await duringOpenBatch(
      (id) => [
        { kind: 'k', dependsOn: [id] },
        { kind: 'k', dependsOn: [{ index: 0 }] },
        { kind: 'k', dependsOn: [{ index: 0 }], onDependencyFailure: 'run' },
      ],
      (lease) => within(s.fail([{ ...lease, error: 'boom', retryDelayMs: 0, permanent: true }]), 3000),
    );
    assert.notEqual(during, 'blocked', 'the outcome did not wait for the enqueue');
    const [first, second, third] = jobs;
    assert.ok(first && second && third);
    assert.deepEqual(
      [first.status, second.status, third.status],
      ['CANCELLED', 'CANCELLED', 'PENDING'],
      'the batch answers the jobs as it left them',
    );
    assert.equal(first.lastError, `dependency ${first.dependsOn[0]} ended FAILED`);
    assert.equal(second.lastError, `dependency ${first.id} ended CANCELLED`);
    for (const job of jobs.slice(0, 3)) assert.equal((await s.getJob(job.id))?.status, job.status);
  });
});

// A sleeping or waiting job holds no slot and costs no claim: a million of them (half asleep,
// SCHEDULED with a sleep's step row; half WAITING for a signal) leave the claim's plan and the
// pages it reads unchanged. PostgreSQL proves it with EXPLAIN (ANALYZE, BUFFERS) of the claim
// before and after; SQLite with its query plan and the contents of the index the claim reads.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import pg from 'pg';
import {
  buildPgClaim,
  buildSqliteClaim,
  PG_BY_INDEX_OPTIONS,
  PG_PLANNER_OPTIONS,
} from '@nudge/store/statements';
import type { Store } from '@nudge/store';
import {
  createMigratedDatabase,
  openStore,
  planNodes,
  rawQuery,
  type PlanNode,
  type TestDatabase,
} from '../helpers/index.js';

const SLEEPERS = 1_000_000;
const DUE = 10;
const GROUPS = [{ kinds: ['k'], limit: 5 }];

/** Half asleep (a sleep's step row each), half waiting for a signal with a deadline tomorrow. */
const PG_SLEEPERS = `
WITH made AS (
  INSERT INTO nudge_jobs (kind, status, run_at, has_steps, wait_signal)
  SELECT 'k', CASE WHEN g % 2 = 0 THEN 'SCHEDULED' ELSE 'WAITING' END, now() + interval '1 day', true,
         CASE WHEN g % 2 = 1 THEN 'approve' END
    FROM generate_series(1, ${SLEEPERS}) AS g
  RETURNING id, status
)
INSERT INTO nudge_job_steps (job_id, name, position, type, status, attempt, started_at, wake_at)
SELECT id, CASE WHEN status = 'SCHEDULED' THEN 'nap' ELSE 'approve' END, 1,
       CASE WHEN status = 'SCHEDULED' THEN 'sleep' ELSE 'signal' END,
       CASE WHEN status = 'SCHEDULED' THEN 'SLEEPING' ELSE 'WAITING' END, 1, now(), now() + interval '1 day'
  FROM made`;

/** As many finished jobs: the same table and index sizes, none of them sleeping. */
const PG_FINISHED = `
INSERT INTO nudge_jobs (kind, status, run_at, finished_at, result)
SELECT 'k', 'SUCCEEDED', now() - interval '1 day', now(), 'null'::jsonb FROM generate_series(1, ${SLEEPERS})`;

const SQLITE_SLEEPERS = [
  `WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ${SLEEPERS})
   INSERT INTO nudge_jobs (kind, status, run_at, has_steps, wait_signal)
   SELECT 'k', CASE WHEN n % 2 = 0 THEN 'SCHEDULED' ELSE 'WAITING' END,
          strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '+1 day'), 1, CASE WHEN n % 2 = 1 THEN 'approve' END
     FROM g`,
  `INSERT INTO nudge_job_steps (job_id, name, position, type, status, attempt, started_at, wake_at)
   SELECT id, CASE WHEN status = 'SCHEDULED' THEN 'nap' ELSE 'approve' END, 1,
          CASE WHEN status = 'SCHEDULED' THEN 'sleep' ELSE 'signal' END,
          CASE WHEN status = 'SCHEDULED' THEN 'SLEEPING' ELSE 'WAITING' END, 1,
          strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '+1 day')
     FROM nudge_jobs WHERE has_steps`,
];

interface Explained {
  /** The nodes that ran, with the index or table each read. */
  readonly shape: string[];
  /** Pages the whole statement touched (reads, and the writes of the claimed rows). */
  readonly buffers: number;
  /** Pages and rows its scans read. */
  readonly read: number;
  readonly rows: number;
}

/** The claim under EXPLAIN (ANALYZE, BUFFERS) with the settings of the store's claim pool, rolled back. */
async function explainClaim(url: string): Promise<Explained> {
  const client = new pg.Client({
    connectionString: url,
    options: `${PG_PLANNER_OPTIONS} ${PG_BY_INDEX_OPTIONS}`,
  });
  await client.connect();
  try {
    await client.query('BEGIN');
    const claim = buildPgClaim({ workerId: 'w1', leaseMs: 60_000, groups: [] }, GROUPS);
    const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode & Record<string, number> }] }>(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${claim.text}`,
      claim.values,
    );
    await client.query('ROLLBACK');
    const plan = rows[0]?.['QUERY PLAN'][0].Plan;
    if (!plan) throw new Error('EXPLAIN answered no plan');
    // The nodes that ran: the subplans that read a claimed job's steps run only for a job that
    // has some, and their plan may change with the size of the tables they would read.
    const shape = planNodes(plan)
      .filter((n) => (n['Actual Loops'] ?? 1) > 0)
      .map((n) => `${n['Node Type']} ${n['Index Name'] ?? n['Relation Name'] ?? ''}`);
    const scans = planNodes(plan).filter((n) => /Scan/.test(n['Node Type']) && n['Node Type'] !== 'CTE Scan');
    const pages = (n: PlanNode) => {
      const b = n as unknown as Record<string, number | undefined>;
      return (b['Shared Hit Blocks'] ?? 0) + (b['Shared Read Blocks'] ?? 0);
    };
    const read = scans.reduce((sum, n) => sum + pages(n), 0);
    const scanned = scans.reduce((sum, n) => sum + (n['Actual Rows'] ?? 0) * (n['Actual Loops'] ?? 1), 0);
    return { shape, buffers: pages(plan), read, rows: scanned };
  } finally {
    await client.end();
  }
}

function sqlitePlan(db: TestDatabase): string[] {
  const conn = new Database(db.url.slice('sqlite:'.length), { readonly: true });
  try {
    const claim = buildSqliteClaim({ workerId: 'w', leaseMs: 60_000, groups: [] }, GROUPS);
    return conn
      .prepare<Record<string, unknown>, { detail: string }>(`EXPLAIN QUERY PLAN ${claim.text}`)
      .all(claim.params)
      .map((row) => row.detail);
  } finally {
    conn.close();
  }
}

describe(`a million sleeping and waiting jobs cost the claim nothing`, () => {
  let pgDb: TestDatabase;
  let pgFinishedDb: TestDatabase;
  let sqliteDb: TestDatabase;
  let pgStore: Store;
  let sqliteStore: Store;
  let pgBefore: Explained;
  let sqliteBefore: string[];

  before(async () => {
    [pgDb, pgFinishedDb, sqliteDb] = await Promise.all([
      createMigratedDatabase('postgres'),
      createMigratedDatabase('postgres'),
      createMigratedDatabase('sqlite'),
    ]);
    [pgStore, sqliteStore] = await Promise.all([openStore(pgDb), openStore(sqliteDb)]);
    for (const store of [pgStore, sqliteStore]) {
      await store.enqueueMany(Array.from({ length: DUE }, () => ({ kind: 'k' })));
    }
    await rawQuery(pgDb, 'ANALYZE');
    await rawQuery(sqliteDb, 'ANALYZE');
    pgBefore = await explainClaim(pgDb.url);
    sqliteBefore = sqlitePlan(sqliteDb);
    await rawQuery(pgDb, PG_SLEEPERS);
    const finished = await openStore(pgFinishedDb);
    await finished.enqueueMany(Array.from({ length: DUE }, () => ({ kind: 'k' })));
    await finished.close();
    await rawQuery(pgFinishedDb, PG_FINISHED);
    await rawQuery(pgFinishedDb, 'ANALYZE');
    for (const statement of SQLITE_SLEEPERS) await rawQuery(sqliteDb, statement);
    await rawQuery(pgDb, 'ANALYZE');
    await rawQuery(sqliteDb, 'ANALYZE');
  });
  after(async () => {
    await Promise.all([pgStore.close(), sqliteStore.close()]);
    await Promise.all([pgDb.drop(), pgFinishedDb.drop(), sqliteDb.drop()]);
  });

  it('postgres: the same nodes run and read the same rows beside a million sleepers, and no more pages than beside a million finished jobs', async () => {
    const counts = await pgStore.countByStatus();
    assert.equal(counts.SCHEDULED + counts.WAITING, SLEEPERS);
    const beside = await explainClaim(pgDb.url);
    assert.deepEqual(beside.shape, pgBefore.shape);
    assert.equal(beside.rows, pgBefore.rows, 'the scans read the same rows');
    // The pages grow with the depth of the indexes of a table of a million rows, whatever those
    // rows are, and with where the B-tree split its pages: against a million finished jobs, the
    // scans read at most a page more for each claimed row (never the thousands of pages a
    // million rows fill). Writing the claimed rows touches one index the sleepers are in and
    // finished jobs are not (nudge_jobs_unfinished, by id): a few more pages for each row.
    const besideFinished = await explainClaim(pgFinishedDb.url);
    assert.deepEqual(besideFinished.shape, beside.shape);
    assert.equal(besideFinished.rows, beside.rows);
    const limit = GROUPS[0]!.limit;
    assert.ok(
      beside.read <= besideFinished.read + limit + 2 && beside.buffers <= besideFinished.buffers + 3 * limit,
      `pages read ${beside.read} and touched ${beside.buffers} beside a million sleepers; ${besideFinished.read} and ${besideFinished.buffers} beside a million finished jobs`,
    );
  });

  it('sqlite: the claim reads the due rows through their index, and no sleeper', async () => {
    // With ten rows SQLite may scan the table for the outer UPDATE (it is ten rows); beside a
    // million it must reach them by id, and read candidates through the same index as before.
    const plan = sqlitePlan(sqliteDb);
    assert.ok(
      plan.every((d) => !/^SCAN nudge_jobs$/.test(d)),
      `no full scan: ${plan.join(' | ')}`,
    );
    const claimIndex = (details: string[]) =>
      details.filter((d) => d.includes('nudge_jobs_claimable') || d.includes('nudge_jobs_kind_claimable'));
    assert.deepEqual(claimIndex(plan), claimIndex(sqliteBefore));
    const [inIndex] = await rawQuery<{ n: number }>(
      sqliteDb,
      `SELECT count(*) AS n FROM nudge_jobs INDEXED BY nudge_jobs_claimable WHERE status = 'PENDING'`,
    );
    assert.equal(inIndex?.n, DUE);
  });

  for (const dialect of ['postgres', 'sqlite'] as const) {
    it(`${dialect}: the claim takes the due jobs, none of the sleepers`, async () => {
      const store = dialect === 'postgres' ? pgStore : sqliteStore;
      const claimed = await store.claim({ workerId: 'w', leaseMs: 60_000, groups: GROUPS });
      assert.equal(claimed.length, 5);
      assert.ok(claimed.every((job) => job.stepsJson === undefined));
    });
  }
});

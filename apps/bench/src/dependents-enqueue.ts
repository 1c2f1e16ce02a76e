// The cost of enqueueing jobs with dependencies on a large table, on both dialects:
//   pnpm build && node apps/bench/dist/dependents-enqueue.js [--rows N] [--jobs N] [--deps N] [--dialect D]
// A table of --rows jobs (finished history, plus --deps pending jobs), then one batch of --jobs
// jobs each depending on the same --deps pending jobs ("shared": every job waits, one edge per
// pair), then one batch whose jobs each depend on --deps random finished jobs of the table
// ("spread": each starts at once, no edge). PostgreSQL comes from BENCH_DATABASE_URL, else TEST_DATABASE_URL.
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import { PostgresStore, SqliteStore, type Store } from '@nudge/store';
import { createPostgresDatabase, createSqliteDatabase, type TestDatabase } from '@nudge/test-databases';
import { insertFinishedRows } from './scenarios/filler-rows.js';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    jobs: { type: 'string', default: '1000' },
    deps: { type: 'string', default: '1000' },
    dialect: { type: 'string', default: 'both' },
  },
});
const rows = Number(values.rows);
const jobs = Number(values.jobs);
const deps = Number(values.deps);
const dialects = values.dialect === 'both' ? (['postgres', 'sqlite'] as const) : [values.dialect];

/** Finished jobs on SQLite, as {@link insertFinishedRows} writes them on PostgreSQL. */
function fillSqlite(path: string, count: number): void {
  const db = new Database(path);
  try {
    db.prepare(
      `WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ?)
       INSERT INTO nudge_jobs (kind, status, attempts, version, finished_at)
       SELECT 'noop', 'SUCCEEDED', 1, 1, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM g`,
    ).run(count);
    db.exec('ANALYZE');
  } finally {
    db.close();
  }
}

/** Runs `text` on the PostgreSQL database `db` and answers the first row. */
async function pgRow<Row>(db: TestDatabase, text: string): Promise<Row | undefined> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    return (await client.query(text)).rows[0] as Row | undefined;
  } finally {
    await client.end();
  }
}

/** Primary-key entries of nudge_jobs read so far (the server's statistics; PostgreSQL only). */
async function pkeyReads(db: TestDatabase): Promise<number | undefined> {
  if (db.dialect !== 'postgres') return undefined;
  // The store's connections report their statistics once idle for a second.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const row = await pgRow<{ n: string }>(
    db,
    `SELECT idx_tup_read AS n FROM pg_stat_user_indexes WHERE indexrelname = 'nudge_jobs_pkey'`,
  );
  return Number(row?.n ?? 0);
}

async function deadTuples(db: TestDatabase): Promise<string> {
  if (db.dialect !== 'postgres') return '';
  const row = await pgRow<{ live: string; dead: string }>(
    db,
    `SELECT n_live_tup AS live, n_dead_tup AS dead FROM pg_stat_user_tables WHERE relname = 'nudge_jobs'`,
  );
  return `, nudge_jobs ${row?.live} live / ${row?.dead} dead rows`;
}

/** `count` different values of `draw` (which must have at least that many). */
function distinct(count: number, draw: () => number): number[] {
  const values = new Set<number>();
  while (values.size < count) values.add(draw());
  return [...values];
}

async function timed(db: TestDatabase, label: string, run: () => Promise<unknown>): Promise<void> {
  const readsBefore = await pkeyReads(db);
  const started = performance.now();
  const seconds = () => ((performance.now() - started) / 1000).toFixed(2);
  let outcome: string;
  try {
    await run();
    outcome = `${seconds()} s`;
  } catch (error) {
    outcome = `failed after ${seconds()} s: ${(error as Error).message}`;
  }
  const readsAfter = await pkeyReads(db);
  const reads =
    readsBefore === undefined || readsAfter === undefined
      ? ''
      : ` (${readsAfter - readsBefore} primary-key entries read)`;
  console.log(`  ${label}: ${outcome}${reads}`);
}

for (const dialect of dialects) {
  const adminUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;
  if (dialect === 'postgres' && !adminUrl) throw new Error('set BENCH_DATABASE_URL or TEST_DATABASE_URL');
  const db = dialect === 'postgres' ? await createPostgresDatabase(adminUrl) : await createSqliteDatabase();
  const path = db.url.slice('sqlite:'.length);
  const store: Store = dialect === 'postgres' ? new PostgresStore(db.url) : new SqliteStore(path);
  try {
    await store.migrate();
    const filled = performance.now();
    if (dialect === 'postgres') await insertFinishedRows(db.url, rows - deps);
    else fillSqlite(path, rows - deps);
    const pending = await store.enqueueMany(Array.from({ length: deps }, () => ({ kind: 'dep' })));
    const ids = pending.map((job) => job.id);
    console.log(
      `${dialect}: ${rows} rows (filled in ${((performance.now() - filled) / 1000).toFixed(1)} s), ${jobs} jobs x ${deps} dependencies`,
    );
    await timed(db, 'shared (each job waits for the same pending jobs)', () =>
      store.enqueueMany(Array.from({ length: jobs }, () => ({ kind: 'shared', dependsOn: ids }))),
    );
    const random = () => 1 + Math.floor(Math.random() * (rows - deps));
    await timed(db, 'spread (each job on random finished jobs of the table)', () =>
      store.enqueueMany(
        Array.from({ length: jobs }, () => ({
          kind: 'spread',
          // Distinct ids: the job contract refuses a dependency listed twice.
          dependsOn: distinct(deps, random),
        })),
      ),
    );
    console.log(`  after${await deadTuples(db)}`);
  } finally {
    await store.close();
    await db.drop();
  }
}

// Rows the nudge-only scenarios put in nudge_jobs before the servers start, written as plain SQL
// against the table's columns (the bench's view of the schema, like any producer's).
import pg from 'pg';

/**
 * Status of a job that is not due yet (scheduled for later, or waiting out a retry backoff):
 * `SCHEDULED` since migration 0002 (before it, `PENDING` with a future `run_at`). Change it here
 * and nowhere else.
 */
export const NOT_DUE_STATUS = 'SCHEDULED';

/** Status of a job that is due now. */
export const DUE_STATUS = 'PENDING';

/** Runs `statements` in order on one connection to `databaseUrl`. */
export async function runSql(databaseUrl: string, statements: readonly string[]): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

function whole(count: number): number {
  if (!Number.isInteger(count) || count < 0)
    throw new RangeError(`row count must be a whole number (got ${count})`);
  return count;
}

/**
 * `count` finished jobs, as months of history leave them: `SUCCEEDED`, one attempt, finished
 * over the last 30 days; then `VACUUM ANALYZE`, as autovacuum would have done by then, and a
 * `CHECKPOINT`, so writing out the new rows does not compete with the measurement.
 */
export async function insertFinishedRows(databaseUrl: string, count: number): Promise<void> {
  await runSql(databaseUrl, [
    `INSERT INTO nudge_jobs (kind, payload, status, attempts, version, run_at, created_at, started_at, finished_at)
     SELECT 'noop', '{}'::jsonb, 'SUCCEEDED', 1, 1, t, t, t, t + interval '5 ms'
       FROM (SELECT now() - (g * interval '30 days' / ${whole(count)}) AS t
               FROM generate_series(1, ${whole(count)}) AS g) AS s`,
    'VACUUM ANALYZE nudge_jobs',
    'CHECKPOINT',
  ]);
}

/**
 * `countEach` jobs scheduled for tomorrow and `countEach` jobs waiting on a retry backoff (one
 * failed attempt, due one to two hours from now, so none comes due while the scenario runs), all
 * with status {@link NOT_DUE_STATUS}; then `VACUUM ANALYZE` and a `CHECKPOINT`.
 */
export async function insertNotDueRows(databaseUrl: string, countEach: number): Promise<void> {
  const n = whole(countEach);
  await runSql(databaseUrl, [
    `INSERT INTO nudge_jobs (kind, payload, status, run_at)
     SELECT 'noop', '{}'::jsonb, '${NOT_DUE_STATUS}', now() + interval '1 day' + g * interval '1 ms'
       FROM generate_series(1, ${n}) AS g`,
    `INSERT INTO nudge_jobs (kind, payload, status, attempts, version, run_at, last_error)
     SELECT 'noop', '{}'::jsonb, '${NOT_DUE_STATUS}', 1, 1,
            now() + interval '1 hour' + (g * interval '1 hour' / ${n}), 'bench: simulated failure'
       FROM generate_series(1, ${n}) AS g`,
    'VACUUM ANALYZE nudge_jobs',
    'CHECKPOINT',
  ]);
}

/** `count` due no-op jobs (status {@link DUE_STATUS}), then `VACUUM ANALYZE`. */
export async function insertDueRows(databaseUrl: string, count: number): Promise<void> {
  await runSql(databaseUrl, [
    `INSERT INTO nudge_jobs (kind, payload, status) SELECT 'noop', '{}'::jsonb, '${DUE_STATUS}' FROM generate_series(1, ${whole(count)})`,
    'VACUUM ANALYZE nudge_jobs',
  ]);
}

import {
  ON_KEY_CONFLICT_DO_NOTHING,
  paramValue,
  presentColumns,
  type EnqueueRow,
  type JobColumn,
} from './job-columns.js';
import { insertJobsSql } from './insert-jobs-sql.js';
import { returningList, type Returning } from './returned-row.js';
import { sqliteTime, sqliteTimePlus } from './sqlite-clock.js';
import type { SqlQuery } from './sql-query.js';

/** One row's value list and its parameters. */
function rowValues(columns: readonly JobColumn[], job: EnqueueRow): { sql: string; params: unknown[] } {
  const cells: string[] = [];
  const params: unknown[] = [];
  for (const column of columns) {
    cells.push(column.clockPlusMs ? sqliteTimePlus('?') : '?');
    params.push(paramValue(column, job));
  }
  // SQLite's insert trigger runs after the row is written, so the status of a future run_at is
  // set here for RETURNING to show it.
  const runAt = columns.find((c) => c.column === 'run_at');
  if (runAt) {
    cells.push(
      `CASE WHEN ${runAt.clockPlusMs ? sqliteTimePlus('?') : '?'} > ${sqliteTime()} THEN 'SCHEDULED' ELSE 'PENDING' END`,
    );
    params.push(paramValue(runAt, job));
  }
  return { sql: `(${cells.join(', ')})`, params };
}

/**
 * The SQLite INSERT of `jobs`, which must all set the same fields (the plan groups them so): one
 * multi-row `VALUES` with `?` placeholders. `delayMs` is added to the database clock in the
 * statement; a `run_at` after that clock stores the job as `SCHEDULED`.
 * @param onConflict - the upsert clause (default {@link ON_KEY_CONFLICT_DO_NOTHING}; the debounce
 *   insert skips a job that waits under its key instead)
 * @throws Error when `jobs` is empty
 */
export function sqliteInsertJobs(
  jobs: readonly EnqueueRow[],
  returning: Returning,
  onConflict = ON_KEY_CONFLICT_DO_NOTHING,
): SqlQuery {
  const first = jobs[0];
  if (first === undefined) throw new Error('sqliteInsertJobs needs at least one job');
  const columns = presentColumns(first);
  const names = columns.map((c) => c.column);
  if (names.includes('run_at')) names.push('status');
  const rows = jobs.map((job) => rowValues(columns, job));
  const sql = insertJobsSql({
    columns: names,
    rows: `VALUES ${rows.map((r) => r.sql).join(', ')}`,
    onConflict,
    returning: returningList(returning),
  });
  return { sql, params: rows.flatMap((r) => r.params) };
}

/** Parameters a job that fills `columns` takes in {@link sqliteInsertJobs}. */
export function sqliteParamCount(columns: readonly JobColumn[]): number {
  return columns.length + (columns.some((c) => c.column === 'run_at') ? 1 : 0);
}

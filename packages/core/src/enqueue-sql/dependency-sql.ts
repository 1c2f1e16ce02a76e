import type { DependencyFailureMode } from '../job-options.js';
import type { JobStatus } from '../job-status.js';
import { paramValue, presentColumns, ON_KEY_CONFLICT_DO_NOTHING, type EnqueueRow } from './job-columns.js';
import { returningList, type Returning } from './returned-row.js';
import { sqliteTime, sqliteTimePlus } from './sqlite-clock.js';
import type { SqlDialect, SqlQuery } from './sql-query.js';

/** A dependency's row as {@link lockDependencies} returns it. */
export interface DependencyStatusRow {
  readonly id: number | string | bigint;
  readonly status: JobStatus;
}

/**
 * How a dependent job is inserted: `WAITING` (a dependency has not finished), `CANCELLED` (one
 * already ended `FAILED` or `CANCELLED` and the job cancels on that), or `READY`: every dependency
 * finished, so the job starts as any other (`PENDING`, or `SCHEDULED` for a future start).
 */
export type DependentStart =
  { readonly status: 'WAITING' | 'READY' } | { readonly status: 'CANCELLED'; readonly lastError: string };

/**
 * Marks the dependencies `ids` as having dependents and returns their id and status, locking each
 * row until the transaction ends. Invariant: a dependency cannot finish between this read and
 * the commit of the dependent (on PostgreSQL the rows are locked in id order, `FOR NO KEY
 * UPDATE`, which a status change waits for; SQLite has one writer), so a dependency finished
 * before is seen finished here, and one finishing after sees the dependent's edges.
 */
export function lockDependencies(dialect: SqlDialect, ids: readonly number[]): SqlQuery {
  const json = JSON.stringify(ids);
  if (dialect === 'postgres') {
    return {
      sql:
        'UPDATE nudge_jobs SET has_dependents = true WHERE id IN (' +
        'SELECT id FROM nudge_jobs WHERE id IN (SELECT value::bigint FROM jsonb_array_elements_text($1::jsonb)) ' +
        'ORDER BY id FOR NO KEY UPDATE) RETURNING id, status',
      params: [json],
    };
  }
  return {
    sql: 'UPDATE nudge_jobs SET has_dependents = 1 WHERE id IN (SELECT value FROM json_each(?)) RETURNING id, status',
    params: [json],
  };
}

/**
 * The start of a job whose dependencies are `rows`, by {@link DependentStart}. `missing` are ids
 * that name no job, counted as dependencies that did not succeed (a follow-up's dependencies are
 * read only when its parent completes; see `enqueuePlan`): `cancel` inserts the job `CANCELLED`,
 * `run` leaves them out.
 */
export function dependentStart(
  rows: readonly DependencyStatusRow[],
  mode: DependencyFailureMode,
  missing: readonly number[] = [],
): DependentStart {
  const [absent] = missing;
  if (absent !== undefined && mode === 'cancel')
    return { status: 'CANCELLED', lastError: `dependency ${absent} does not exist` };
  const failed = rows.find((row) => row.status === 'FAILED' || row.status === 'CANCELLED');
  if (failed && mode === 'cancel')
    return { status: 'CANCELLED', lastError: `dependency ${String(failed.id)} ended ${failed.status}` };
  const finished = (status: JobStatus) =>
    status === 'SUCCEEDED' || status === 'FAILED' || status === 'CANCELLED';
  return { status: rows.every((row) => finished(row.status)) ? 'READY' : 'WAITING' };
}

/**
 * The INSERT of one job with dependencies `ids` (resolved, without repeats), started as `start`:
 * its fields as a plain enqueue writes them, plus `depends_on`, `on_dependency_failure` and, for
 * `WAITING` and `CANCELLED`, the status (a `READY` job takes the plain enqueue's `PENDING` or
 * `SCHEDULED`). A job whose kind and idempotency key exist inserts nothing.
 */
export function insertDependentJob(
  dialect: SqlDialect,
  job: EnqueueRow,
  ids: readonly number[],
  start: DependentStart,
  returning: Returning,
): SqlQuery {
  const columns = presentColumns(job);
  const names: string[] = [];
  const cells: string[] = [];
  const params: unknown[] = [];
  const pg = dialect === 'postgres';
  const bind = (value: unknown, pgType: string): string => {
    params.push(value);
    return pg ? `$${params.length}::${pgType}` : '?';
  };
  const clockPlus = (value: unknown): string =>
    pg
      ? `now() + ${bind(value, 'double precision')} * interval '1 millisecond'`
      : sqliteTimePlus(bind(value, ''));
  for (const column of columns) {
    names.push(column.column);
    const value = paramValue(column, job);
    cells.push(column.clockPlusMs ? clockPlus(value) : bind(value, column.pgType));
  }
  names.push('depends_on', 'on_dependency_failure');
  cells.push(bind(JSON.stringify(ids), 'jsonb'), bind(job.onDependencyFailure ?? 'cancel', 'text'));
  if (start.status !== 'READY') {
    names.push('status');
    cells.push(bind(start.status, 'text'));
  } else if (!pg) {
    // SQLite's insert trigger runs after the row is written: the status of a future start is set here.
    const runAt = columns.find((c) => c.column === 'run_at');
    if (runAt) {
      const at = runAt.clockPlusMs ? clockPlus(paramValue(runAt, job)) : bind(paramValue(runAt, job), '');
      names.push('status');
      cells.push(`CASE WHEN ${at} > ${sqliteTime()} THEN 'SCHEDULED' ELSE 'PENDING' END`);
    }
  }
  if (start.status === 'CANCELLED') {
    names.push('finished_at', 'last_error');
    cells.push(pg ? 'now()' : sqliteTime(), bind(start.lastError, 'text'));
  }
  return {
    sql:
      `INSERT INTO nudge_jobs (${names.join(', ')}) VALUES (${cells.join(', ')}) ` +
      `${ON_KEY_CONFLICT_DO_NOTHING} RETURNING ${returningList(returning)}`,
    params,
  };
}

/**
 * Records the edges of a `WAITING` job: one row of `nudge_job_dependencies` per dependency, which
 * the dependency trigger reads when a dependency finishes. Returns the job id once per edge.
 */
export function insertDependencyEdges(dialect: SqlDialect, jobId: number, ids: readonly number[]): SqlQuery {
  const json = JSON.stringify(ids);
  return dialect === 'postgres'
    ? {
        sql:
          'INSERT INTO nudge_job_dependencies (job_id, depends_on_id) ' +
          'SELECT $1::bigint, value::bigint FROM jsonb_array_elements_text($2::jsonb) RETURNING job_id',
        params: [jobId, json],
      }
    : {
        sql:
          'INSERT INTO nudge_job_dependencies (job_id, depends_on_id) ' +
          'SELECT ?, value FROM json_each(?) RETURNING job_id',
        params: [jobId, json],
      };
}

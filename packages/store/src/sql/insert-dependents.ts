import type { DependentStart } from './dependency-sql.js';
import { insertJobsSql } from './insert-jobs-sql.js';
import { paramValue, presentColumns, type EnqueueRow } from './job-columns.js';
import { returningList, type Returning } from './returned-row.js';
import { sqliteTime, sqliteTimePlus } from './sqlite-clock.js';
import type { SqlDialect, SqlQuery } from './sql-query.js';

/** A job with dependencies to insert: the job, its dependencies (resolved, without repeats), its start. */
export interface DependentRow {
  readonly job: EnqueueRow;
  readonly ids: readonly number[];
  readonly start: DependentStart;
}

/** Bind parameters a dependent takes in {@link insertDependentJobs} beyond its fields' (at most). */
export const DEPENDENT_EXTRA_PARAMS = 4;

/**
 * The INSERT of jobs with dependencies `rows`, which must all set the same fields (the plan groups
 * them so): one multi-row `VALUES`, each row with its fields as a plain enqueue writes them, plus
 * `depends_on`, `on_dependency_failure` and a status by its {@link DependentStart}: `WAITING`,
 * `CANCELLED` (finished now, with `last_error`), or for `READY` the plain enqueue's `PENDING`
 * (`SCHEDULED` for a future start: PostgreSQL's insert trigger sets it; SQLite's runs after the row
 * is written, so the status is computed here for RETURNING to show it). A job whose kind and
 * idempotency key exist inserts nothing.
 * @throws Error when `rows` is empty
 */
export function insertDependentJobs(
  dialect: SqlDialect,
  rows: readonly DependentRow[],
  returning: Returning,
): SqlQuery {
  const first = rows[0];
  if (first === undefined) throw new Error('insertDependentJobs needs at least one job');
  const columns = presentColumns(first.job);
  const pg = dialect === 'postgres';
  const params: unknown[] = [];
  const bind = (value: unknown, pgType: string): string => {
    params.push(value);
    return pg ? `$${params.length}::${pgType}` : '?';
  };
  const clockPlus = (value: unknown): string =>
    pg
      ? `now() + ${bind(value, 'double precision')} * interval '1 millisecond'`
      : sqliteTimePlus(bind(value, ''));
  const now = pg ? 'now()' : sqliteTime();
  const runAt = columns.find((c) => c.column === 'run_at');
  const values = rows.map(({ job, ids, start }) => {
    const cells = columns.map((column) =>
      column.clockPlusMs ? clockPlus(paramValue(column, job)) : bind(paramValue(column, job), column.pgType),
    );
    cells.push(bind(JSON.stringify(ids), 'jsonb'), bind(job.onDependencyFailure ?? 'cancel', 'text'));
    if (start.status !== 'READY') {
      cells.push(bind(start.status, 'text'));
    } else if (!pg && runAt) {
      const at = runAt.clockPlusMs ? clockPlus(paramValue(runAt, job)) : bind(paramValue(runAt, job), '');
      cells.push(`CASE WHEN ${at} > ${sqliteTime()} THEN 'SCHEDULED' ELSE 'PENDING' END`);
    } else {
      cells.push(`'PENDING'`);
    }
    if (start.status === 'CANCELLED') cells.push(now, bind(start.lastError, 'text'));
    else cells.push('NULL', 'NULL');
    return `(${cells.join(', ')})`;
  });
  const names = [
    ...columns.map((c) => c.column),
    'depends_on',
    'on_dependency_failure',
    'status',
    'finished_at',
    'last_error',
  ];
  return {
    sql: insertJobsSql({
      columns: names,
      rows: `VALUES ${values.join(', ')}`,
      returning: returningList(returning),
    }),
    params,
  };
}

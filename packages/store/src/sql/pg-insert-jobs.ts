import {
  ON_KEY_CONFLICT_DO_NOTHING,
  paramValue,
  presentColumns,
  type EnqueueRow,
  type JobColumn,
} from './job-columns.js';
import { insertJobsSql } from './insert-jobs-sql.js';
import { returningList, type Returning } from './returned-row.js';
import type { SqlQuery } from './sql-query.js';

/**
 * One job: a plain `VALUES` row, one parameter a field. The server plans it faster than a
 * one-record `jsonb_to_recordset` (the single enqueue is the hot path of `POST /jobs`).
 */
function pgInsertOne(
  columns: readonly JobColumn[],
  job: EnqueueRow,
  returning: Returning,
  onConflict: string,
): SqlQuery {
  const values = columns.map((c, i) =>
    c.clockPlusMs
      ? `now() + $${i + 1}::double precision * interval '1 millisecond'`
      : `$${i + 1}::${c.pgType}`,
  );
  const sql = insertJobsSql({
    columns: columns.map((c) => c.column),
    rows: `VALUES (${values.join(', ')})`,
    onConflict,
    returning: returningList(returning),
  });
  return { sql, params: columns.map((c) => paramValue(c, job)) };
}

/**
 * The PostgreSQL INSERT of `jobs`, which must all set the same fields (the plan groups them so):
 * their fields as one JSON parameter, read by `jsonb_to_recordset` in input order. One parameter
 * instead of one per column and row: the server parses one JSON text instead of binding
 * thousands of values, and the text of the statement depends on the fields only. A single job
 * is a plain `VALUES` row. A future
 * `run_at` is made `SCHEDULED` by the table's insert trigger; `delayMs` is added to the
 * database clock in the statement.
 * @param onConflict - the upsert clause (default {@link ON_KEY_CONFLICT_DO_NOTHING}; the debounce
 *   insert skips a job that waits under its key instead)
 * @throws Error when `jobs` is empty
 */
export function pgInsertJobs(
  jobs: readonly EnqueueRow[],
  returning: Returning,
  onConflict = ON_KEY_CONFLICT_DO_NOTHING,
): SqlQuery {
  const first = jobs[0];
  if (first === undefined) throw new Error('pgInsertJobs needs at least one job');
  const columns = presentColumns(first);
  if (jobs.length === 1) return pgInsertOne(columns, first, returning, onConflict);
  const records = jobs.map((job) => Object.fromEntries(columns.map((c) => [c.recordField, c.value(job)])));
  // jsonb_to_recordset reads a JSON null as SQL NULL: a payload of null, present in every record
  // of the run, is JSON null again.
  const values = columns.map((c) =>
    c.clockPlusMs
      ? `now() + r.${c.recordField} * interval '1 millisecond'`
      : c.pgType === 'jsonb'
        ? `coalesce(r.${c.recordField}, 'null'::jsonb)`
        : `r.${c.recordField}`,
  );
  const sql = insertJobsSql({
    columns: columns.map((c) => c.column),
    rows:
      `SELECT ${values.join(', ')} ` +
      `FROM ROWS FROM (jsonb_to_recordset($1::jsonb) AS (${columns.map((c) => `${c.recordField} ${c.pgType}`).join(', ')})) ` +
      `WITH ORDINALITY AS r(${columns.map((c) => c.recordField).join(', ')}, n) ` +
      'ORDER BY r.n',
    onConflict,
    returning: returningList(returning),
  });
  return { sql, params: [JSON.stringify(records)] };
}

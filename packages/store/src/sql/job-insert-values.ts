import { JOB_COLUMNS, paramValue, type EnqueueRow, type JobColumn } from './job-columns.js';
import { sqliteTimePlus } from './sqlite-clock.js';

/**
 * The column list and value expressions of an `INSERT … SELECT` or a fixed `VALUES` row that
 * fills every column of {@link JOB_COLUMNS} from fields that may be absent: each absent field
 * takes its column's default, and `run_at` is `runAt`, else the clock plus `delayMs` (0 when
 * absent). Used where one statement inserts jobs of any shape (follow-ups, inside a completion).
 */
export interface JobInsertValues {
  readonly columns: readonly string[];
  readonly values: readonly string[];
}

/** `ref` gives SQL for a field's value (NULL when absent); `plusMs(ms)` the clock plus SQL ms. */
function jobInsertValues(
  ref: (column: JobColumn) => string,
  plusMs: (msSql: string) => string,
): JobInsertValues {
  const byColumn = new Map<string, JobColumn[]>();
  for (const column of JOB_COLUMNS)
    byColumn.set(column.column, [...(byColumn.get(column.column) ?? []), column]);
  const columns: string[] = [];
  const values: string[] = [];
  for (const [name, fields] of byColumn) {
    columns.push(name);
    const at = fields.find((f) => !f.clockPlusMs);
    const delay = fields.find((f) => f.clockPlusMs);
    if (at === undefined) throw new Error(`column ${name} has no field of its own`);
    if (delay) values.push(`coalesce(${ref(at)}, ${plusMs(`coalesce(${ref(delay)}, 0)`)})`);
    else values.push(at.defaultSql === undefined ? ref(at) : `coalesce(${ref(at)}, ${at.defaultSql})`);
  }
  return { columns, values };
}

/**
 * PostgreSQL: every job column from a `jsonb_to_recordset` record aliased `alias`, whose fields
 * {@link pgRecordDefinition} declares; `clockSql` is SQL for the time a delay counts from.
 */
export function pgRecordValues(alias: string, clockSql: string): JobInsertValues {
  return jobInsertValues(
    (c) => `${alias}.${c.recordField}`,
    (ms) => `${clockSql} + (${ms}) * interval '1 millisecond'`,
  );
}

/** The record fields of {@link pgRecordValues} for `jsonb_to_recordset`: `kind text, payload jsonb, …`. */
export function pgRecordDefinition(): string {
  return JOB_COLUMNS.map((c) => `${c.recordField} ${c.pgType}`).join(', ');
}

/**
 * SQLite: every job column from named parameters `@kind`, `@payload`, `@queue`, … (one per field
 * of {@link JOB_COLUMNS}, bound NULL when absent: see {@link namedJobParams}); `clockSql` is SQL
 * for the instant a delay counts from (`'now'`, or the store's `coalesce(@now, 'now')`).
 */
export function sqliteNamedValues(clockSql: string): JobInsertValues {
  return jobInsertValues(
    (c) => `@${c.field}`,
    (ms) => sqliteTimePlus(ms, clockSql),
  );
}

/**
 * The parameters of {@link sqliteNamedValues}: each field's bind value, NULL when absent.
 * `payloadJson`, when given, is the payload as JSON text already (it is not stringified again).
 */
export function namedJobParams(job: EnqueueRow, payloadJson?: string): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const c of JOB_COLUMNS) {
    params[c.field] =
      c.field === 'payload' && payloadJson !== undefined ? payloadJson : (paramValue(c, job) ?? null);
  }
  return params;
}

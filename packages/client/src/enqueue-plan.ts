import type { JobInput, EnqueueResult } from './job-input.js';
import { SQLITE_NOW, SQLITE_NOW_PLUS_MS, type SqlDialect, type SqlQuery } from './sql-dialect.js';

/** A row as the insert and the read-back return it (`ikey`: one word survives a camel-case plugin). */
export interface ReturnedRow {
  readonly id: number | string | bigint;
  readonly kind: string;
  readonly ikey: string | null;
}

/**
 * Bind parameters per statement: below SQLite's 32,766 and PostgreSQL's 65,535, whatever the
 * columns of a row (at most 10 parameters each).
 */
const MAX_PARAMS = 30_000;
/** Rows per INSERT at most, however few columns they have. */
const MAX_ROWS = 1000;
/** `(kind, key)` pairs per read-back of existing jobs. */
const MAX_KEYS_PER_READ = 500;

/** One column value: its name, its SQL with `?` placeholders, and the values to bind. */
interface Cell {
  readonly column: string;
  readonly sql: string;
  readonly params: readonly unknown[];
}

function cells(dialect: SqlDialect, job: JobInput<string, unknown>): Cell[] {
  const row: Cell[] = [{ column: 'kind', sql: '?', params: [job.kind] }];
  const pg = dialect === 'postgres';
  // jsonb goes as JSON text: node-postgres would send a JS array as a PostgreSQL array.
  if (job.payload !== undefined)
    row.push({ column: 'payload', sql: pg ? '?::jsonb' : '?', params: [JSON.stringify(job.payload)] });
  if (job.queue !== undefined) row.push({ column: 'queue', sql: '?', params: [job.queue] });
  if (job.priority !== undefined) row.push({ column: 'priority', sql: '?', params: [job.priority] });
  if (job.maxAttempts !== undefined)
    row.push({ column: 'max_attempts', sql: '?', params: [job.maxAttempts] });
  if (job.idempotencyKey !== undefined)
    row.push({ column: 'idempotency_key', sql: '?', params: [job.idempotencyKey] });
  // A future run_at ends up SCHEDULED: on PostgreSQL the table's BEFORE INSERT trigger does it;
  // SQLite's trigger runs after the insert, so the status is set here for RETURNING to be right.
  if (job.runAt !== undefined) {
    const iso = job.runAt.toISOString();
    if (pg) row.push({ column: 'run_at', sql: '?::timestamptz', params: [iso] });
    else {
      row.push({ column: 'run_at', sql: '?', params: [iso] });
      row.push({
        column: 'status',
        sql: `CASE WHEN ? > ${SQLITE_NOW} THEN 'SCHEDULED' ELSE 'PENDING' END`,
        params: [iso],
      });
    }
  } else if (job.delayMs !== undefined) {
    const ms = Math.round(job.delayMs);
    if (pg) {
      row.push({
        column: 'run_at',
        sql: `now() + ?::double precision * interval '1 millisecond'`,
        params: [ms],
      });
    } else {
      row.push({ column: 'run_at', sql: SQLITE_NOW_PLUS_MS, params: [ms] });
      row.push({
        column: 'status',
        sql: `CASE WHEN ${SQLITE_NOW_PLUS_MS} > ${SQLITE_NOW} THEN 'SCHEDULED' ELSE 'PENDING' END`,
        params: [ms],
      });
    }
  }
  return row;
}

const shape = (row: readonly Cell[]): string => row.map((cell) => `${cell.column}=${cell.sql}`).join(',');

/** `?` placeholders as the dialect wants them: `$1, $2, …` on PostgreSQL. */
function numbered(dialect: SqlDialect, sql: string): string {
  if (dialect === 'sqlite') return sql;
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/**
 * A record field of the PostgreSQL insert: its column, its type in `jsonb_to_recordset`, the SQL
 * that turns it into the column's value, and the job's value for it.
 */
interface PgField {
  readonly column: string;
  readonly field: string;
  readonly type: string;
  readonly sql: string;
  readonly value: (job: JobInput<string, unknown>) => unknown;
}

const PG_FIELDS: Readonly<Record<string, PgField>> = {
  kind: { column: 'kind', field: 'kind', type: 'text', sql: 'r.kind', value: (j) => j.kind },
  payload: { column: 'payload', field: 'payload', type: 'jsonb', sql: 'r.payload', value: (j) => j.payload },
  queue: { column: 'queue', field: 'queue', type: 'text', sql: 'r.queue', value: (j) => j.queue },
  priority: {
    column: 'priority',
    field: 'priority',
    type: 'integer',
    sql: 'r.priority',
    value: (j) => j.priority,
  },
  max_attempts: {
    column: 'max_attempts',
    field: 'max_attempts',
    type: 'integer',
    sql: 'r.max_attempts',
    value: (j) => j.maxAttempts,
  },
  idempotency_key: {
    column: 'idempotency_key',
    field: 'idempotency_key',
    type: 'text',
    sql: 'r.idempotency_key',
    value: (j) => j.idempotencyKey,
  },
  run_at: {
    column: 'run_at',
    field: 'run_at',
    type: 'timestamptz',
    sql: 'r.run_at',
    value: (j) => j.runAt?.toISOString(),
  },
  delay_ms: {
    column: 'run_at',
    field: 'delay_ms',
    type: 'double precision',
    sql: `now() + r.delay_ms * interval '1 millisecond'`,
    value: (j) => (j.delayMs === undefined ? undefined : Math.round(j.delayMs)),
  },
};

/**
 * The PostgreSQL insert of jobs with the same columns: their fields as one JSON parameter, read by
 * `jsonb_to_recordset` in input order. One parameter instead of one per column and row: parsing
 * one JSON text is cheaper for the server than binding thousands of values.
 */
function pgRecordsetQuery(jobs: ReadonlyArray<JobInput<string, unknown>>, first: readonly Cell[]): SqlQuery {
  const fields = first.map((cell) =>
    cell.column === 'run_at' && cell.sql.includes('interval') ? PG_FIELDS.delay_ms : PG_FIELDS[cell.column],
  );
  if (fields.some((field) => field === undefined)) throw new Error('a column has no record field');
  const used = fields as PgField[];
  const records = jobs.map((job) => Object.fromEntries(used.map((f) => [f.field, f.value(job)])));
  const sql =
    `INSERT INTO nudge_jobs (${used.map((f) => f.column).join(', ')}) ` +
    `SELECT ${used.map((f) => f.sql).join(', ')} ` +
    `FROM ROWS FROM (jsonb_to_recordset($1::jsonb) AS (${used.map((f) => `${f.field} ${f.type}`).join(', ')})) ` +
    `WITH ORDINALITY AS r(${used.map((f) => f.field).join(', ')}, n) ` +
    `ORDER BY r.n ` +
    `ON CONFLICT (kind, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING ` +
    `RETURNING id, kind, idempotency_key AS ikey`;
  return { sql, params: [JSON.stringify(records)] };
}

function insertQuery(dialect: SqlDialect, rows: ReadonlyArray<readonly Cell[]>): SqlQuery {
  const first = rows[0] ?? [];
  const columns = first.map((cell) => cell.column).join(', ');
  const values = rows.map((row) => `(${row.map((cell) => cell.sql).join(', ')})`).join(', ');
  const sql =
    `INSERT INTO nudge_jobs (${columns}) VALUES ${values} ` +
    `ON CONFLICT (kind, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING ` +
    `RETURNING id, kind, idempotency_key AS ikey`;
  return { sql: numbered(dialect, sql), params: rows.flatMap((row) => row.flatMap((cell) => cell.params)) };
}

function readBackQuery(dialect: SqlDialect, keys: ReadonlyArray<readonly [string, string]>): SqlQuery {
  const pairs = keys.map(() => '(?, ?)').join(', ');
  const sql = `SELECT id, kind, idempotency_key AS ikey FROM nudge_jobs WHERE (kind, idempotency_key) IN (VALUES ${pairs})`;
  return { sql: numbered(dialect, sql), params: keys.flat() };
}

/** Consecutive jobs with the same columns, as many as one INSERT takes. */
function chunks(
  dialect: SqlDialect,
  jobs: ReadonlyArray<JobInput<string, unknown>>,
): Array<{ start: number; rows: Cell[][] }> {
  const out: Array<{ start: number; rows: Cell[][] }> = [];
  let current: { start: number; rows: Cell[][]; shape: string; params: number } | undefined;
  jobs.forEach((job, index) => {
    const row = cells(dialect, job);
    const rowShape = shape(row);
    const params = row.reduce((sum, cell) => sum + cell.params.length, 0);
    if (
      !current ||
      current.shape !== rowShape ||
      current.rows.length >= MAX_ROWS ||
      current.params + params > MAX_PARAMS
    ) {
      current = { start: index, rows: [], shape: rowShape, params: 0 };
      out.push(current);
    }
    current.rows.push(row);
    current.params += params;
  });
  return out;
}

const keyOf = (kind: string, key: string): string => `${kind}\u0000${key}`;

/**
 * How many statements {@link enqueuePlan} runs at least: one per INSERT. A plan of one INSERT
 * and no idempotency key is a single statement, atomic without a transaction.
 */
export function isSingleStatement(
  dialect: SqlDialect,
  jobs: ReadonlyArray<JobInput<string, unknown>>,
): boolean {
  return chunks(dialect, jobs).length <= 1 && jobs.every((job) => job.idempotencyKey === undefined);
}

/**
 * The statements that enqueue `jobs` (already validated), as a generator: it yields each
 * statement, is resumed with the rows it returned, and returns each job's `{ id, created }` in
 * input order. Runs of jobs with the same columns become multi-row `INSERT … ON CONFLICT (kind,
 * idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING RETURNING`; omitted columns take
 * the schema's defaults. Rows come back sorted by id (ids ascend in `VALUES` order); a keyed job
 * missing from them existed already (or repeats an earlier job of the batch) and is read back.
 * The caller runs the statements in one transaction so that the batch is all or nothing.
 *
 * @throws Error when the database returned rows that do not match the jobs (a foreign table)
 */
export function* enqueuePlan(
  dialect: SqlDialect,
  jobs: ReadonlyArray<JobInput<string, unknown>>,
): Generator<SqlQuery, EnqueueResult[], readonly ReturnedRow[]> {
  const results: Array<EnqueueResult | undefined> = new Array<EnqueueResult | undefined>(jobs.length);
  const missing: Array<{ index: number; kind: string; key: string }> = [];
  for (const chunk of chunks(dialect, jobs)) {
    const insert =
      dialect === 'postgres'
        ? pgRecordsetQuery(jobs.slice(chunk.start, chunk.start + chunk.rows.length), chunk.rows[0] ?? [])
        : insertQuery(dialect, chunk.rows);
    const rows = [...(yield insert)].sort((a, b) => Number(a.id) - Number(b.id));
    let next = 0;
    for (let offset = 0; offset < chunk.rows.length; offset += 1) {
      const index = chunk.start + offset;
      const job = jobs[index] as JobInput<string, unknown>;
      const row = rows[next];
      const key = job.idempotencyKey;
      if (row && row.kind === job.kind && (row.ikey ?? undefined) === key) {
        results[index] = { id: Number(row.id), created: true };
        next += 1;
      } else if (key !== undefined) {
        missing.push({ index, kind: job.kind, key });
      } else {
        throw new Error(`INSERT … RETURNING returned no row for job ${index} (kind ${job.kind})`);
      }
    }
  }
  const existing = new Map<string, number>();
  for (let start = 0; start < missing.length; start += MAX_KEYS_PER_READ) {
    const keys = missing.slice(start, start + MAX_KEYS_PER_READ).map(({ kind, key }) => [kind, key] as const);
    for (const row of yield readBackQuery(dialect, keys))
      existing.set(keyOf(row.kind, row.ikey ?? ''), Number(row.id));
  }
  for (const { index, kind, key } of missing) {
    const id = existing.get(keyOf(kind, key));
    if (id === undefined) {
      throw new Error(
        `the job of kind ${kind} and idempotency key ${JSON.stringify(key)} conflicted but could not be read back ` +
          '(deleted in between, or not visible to this transaction): enqueue it again',
      );
    }
    results[index] = { id, created: false };
  }
  return results as EnqueueResult[];
}

import {
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_PRIORITY,
  DEFAULT_QUEUE,
  storedTraceContext,
  type Enqueuer,
  type JobInput,
} from '@nudge/core';

/**
 * A job as the enqueue SQL takes it: the validated input of `@nudge/core`'s job contract, and the
 * id of the API key that enqueues it (`enqueuedBy`, set by the plan from its `Enqueuer`; never a
 * field a producer sends), and the trace context it is enqueued in (`traceContext`, JSON text).
 */
export type EnqueueRow = JobInput<string, unknown> & {
  readonly enqueuedBy?: string;
  readonly traceContext?: string;
};

/** `job` with `enqueuedBy` set to the id of the API key that enqueues it, when one does. */
export const withEnqueuer = <Job extends EnqueueRow>(job: Job, enqueuer: Enqueuer | undefined): Job =>
  enqueuer === undefined ? job : { ...job, enqueuedBy: enqueuer.keyId };

/**
 * One field of a job's input and the column it fills: the one place per option that says how it
 * reaches the jobs table, for every INSERT of jobs in both dialects (plain enqueue, the enqueue
 * that claims for itself, follow-ups).
 */
export interface JobColumn {
  /** The input's field. */
  readonly field: keyof EnqueueRow;
  /** The column it fills. */
  readonly column: string;
  /** Its field in a PostgreSQL `jsonb_to_recordset` record (the column's name, or `delay_ms`). */
  readonly recordField: string;
  /** Its PostgreSQL type, for casts and `jsonb_to_recordset` record definitions. */
  readonly pgType: string;
  /**
   * The value as JSON carries it: the payload as given, ISO-8601 text for `runAt`, whole ms for
   * `delayMs`; `undefined` when absent. {@link paramValue} gives it as a bind parameter.
   */
  readonly value: (job: EnqueueRow) => unknown;
  /**
   * `delayMs` fills `run_at` with the database clock plus the bound ms, computed in the
   * statement, so the producer's clock plays no part.
   */
  readonly clockPlusMs?: true;
  /**
   * The column's default as SQL, the same in both dialects and in every migration: what an
   * `INSERT … SELECT` spells out, where a column cannot fall to its default row by row. Absent
   * for `kind` (required), the keys (`NULL`) and `run_at` (the clock).
   */
  readonly defaultSql?: string;
}

/**
 * The columns a job's input fills, `kind` first. An absent optional field is left out of the
 * INSERT, so the column takes its default (queue `'default'`, priority 0, max_attempts 5,
 * run_at now, payload `{}`). `runAt` and `delayMs` both fill `run_at`; the contract allows one.
 * `throttle` and `debounce` fill their key's column (`throttle_key`, `debounce_key`); their
 * windows are written by the dedupe statements (`dedupe-steps.ts`). `enqueuedBy` fills
 * `enqueued_by`, the API key that enqueued the job; `traceContext` fills `trace_context`.
 */
export const JOB_COLUMNS: readonly JobColumn[] = [
  { field: 'kind', column: 'kind', recordField: 'kind', pgType: 'text', value: (job) => job.kind },
  {
    field: 'payload',
    column: 'payload',
    recordField: 'payload',
    pgType: 'jsonb',
    value: (job) => job.payload,
    defaultSql: `'{}'`,
  },
  {
    field: 'queue',
    column: 'queue',
    recordField: 'queue',
    pgType: 'text',
    value: (job) => job.queue,
    defaultSql: `'${DEFAULT_QUEUE}'`,
  },
  {
    field: 'priority',
    column: 'priority',
    recordField: 'priority',
    pgType: 'integer',
    value: (job) => job.priority,
    defaultSql: String(DEFAULT_PRIORITY),
  },
  {
    field: 'maxAttempts',
    column: 'max_attempts',
    recordField: 'max_attempts',
    pgType: 'integer',
    value: (job) => job.maxAttempts,
    defaultSql: String(DEFAULT_MAX_ATTEMPTS),
  },
  {
    field: 'idempotencyKey',
    column: 'idempotency_key',
    recordField: 'idempotency_key',
    pgType: 'text',
    value: (job) => job.idempotencyKey,
  },
  {
    field: 'concurrencyKey',
    column: 'concurrency_key',
    recordField: 'concurrency_key',
    pgType: 'text',
    value: (job) => job.concurrencyKey,
  },
  {
    field: 'throttle',
    column: 'throttle_key',
    recordField: 'throttle_key',
    pgType: 'text',
    value: (job) => job.throttle?.key,
  },
  {
    field: 'debounce',
    column: 'debounce_key',
    recordField: 'debounce_key',
    pgType: 'text',
    value: (job) => job.debounce?.key,
  },
  {
    field: 'enqueuedBy',
    column: 'enqueued_by',
    recordField: 'enqueued_by',
    pgType: 'text',
    value: (job) => job.enqueuedBy,
  },
  {
    field: 'traceContext',
    column: 'trace_context',
    recordField: 'trace_context',
    pgType: 'text',
    // Bounded as the W3C Trace Context asks, on every enqueue path alike.
    value: (job) => storedTraceContext(job.traceContext),
  },
  {
    field: 'runAt',
    column: 'run_at',
    recordField: 'run_at',
    pgType: 'timestamptz',
    value: (job) => job.runAt?.toISOString(),
  },
  {
    field: 'delayMs',
    column: 'run_at',
    recordField: 'delay_ms',
    pgType: 'double precision',
    value: (job) => (job.delayMs === undefined ? undefined : Math.round(job.delayMs)),
    clockPlusMs: true,
  },
];

/**
 * `job`'s value for `column` as a bind parameter: JSON text for a `jsonb` column (node-postgres
 * would send a JS array as a PostgreSQL array; SQLite stores JSON as text), else the value.
 */
export function paramValue(column: JobColumn, job: EnqueueRow): unknown {
  const value = column.value(job);
  return column.pgType === 'jsonb' && value !== undefined ? JSON.stringify(value) : value;
}

/** The columns `job` fills: `kind` and each optional field it sets, in {@link JOB_COLUMNS} order. */
export function presentColumns(job: EnqueueRow): JobColumn[] {
  return JOB_COLUMNS.filter((c) => c.field === 'kind' || job[c.field] !== undefined);
}

/** A name for a set of present columns (`kind+payload+priority`), to group rows and key caches. */
export function columnsShape(columns: readonly JobColumn[]): string {
  return columns.map((c) => c.field).join('+');
}

/**
 * The upsert clause of every INSERT of jobs (both dialects): a job whose kind and idempotency key
 * exist inserts nothing, and its caller reads the existing job back.
 */
export const ON_KEY_CONFLICT_DO_NOTHING =
  'ON CONFLICT (kind, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING';

import { NudgeError, type JsonValue } from '@nudge/core';
import type { JobSignal, SentSignal, SignalInput } from './signal-types.js';
import type { SqlDialect, SqlQuery } from './sql-query.js';

export type { JobSignal, SentSignal, SignalInput } from './signal-types.js';

// The signal SQL of both dialects, driver-free: the store's sendSignal and the client's
// `signal(executor, …)` run the same statements, so a signal reaches its job (the insert trigger
// of migration 0024) however it is sent.

/**
 * A signal row as a read returns it, under one-word names (they survive a camel-case plugin on
 * the caller's Kysely): the payload as JSON text and the time as ISO-8601 text in both dialects,
 * so no driver's type parsing matters.
 */
export interface SignalRow {
  readonly id: number | string | bigint;
  readonly job: number | string | bigint;
  readonly name: string;
  /** JSON text; `null` when a plain SQL insert left the column `NULL`. */
  readonly payload: string | null;
  readonly sid: string | null;
  /** ISO-8601 UTC text with milliseconds. */
  readonly created: string;
}

const PG_LIST =
  `id, job_id AS job, name, payload::text AS payload, signal_id AS sid, ` +
  `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created`;
const SQLITE_LIST = 'id, job_id AS job, name, payload, signal_id AS sid, created_at AS created';

// Invariant: the insert's trigger locks the job's row (PostgreSQL) or runs under SQLite's one
// writer, refuses an unknown or finished job, and releases a job WAITING for this name, all in the
// inserting transaction. A repeat of (job_id, signal_id) inserts nothing, so fires nothing.
const INSERT = {
  postgres: `
INSERT INTO nudge_job_signals (job_id, name, payload, signal_id) VALUES ($1, $2, $3::jsonb, $4)
ON CONFLICT (job_id, signal_id) DO NOTHING
RETURNING ${PG_LIST}`,
  sqlite: `
INSERT INTO nudge_job_signals (job_id, name, payload, signal_id) VALUES (?, ?, ?, ?)
ON CONFLICT (job_id, signal_id) DO NOTHING
RETURNING ${SQLITE_LIST}`,
} as const;

const READ_BY_SIGNAL_ID = {
  postgres: `SELECT ${PG_LIST} FROM nudge_job_signals WHERE job_id = $1 AND signal_id = $2`,
  sqlite: `SELECT ${SQLITE_LIST} FROM nudge_job_signals WHERE job_id = ? AND signal_id = ?`,
} as const;

const READ_OF_JOB = {
  postgres: `SELECT ${PG_LIST} FROM nudge_job_signals WHERE job_id = $1 ORDER BY id`,
  sqlite: `SELECT ${SQLITE_LIST} FROM nudge_job_signals WHERE job_id = ? ORDER BY id`,
} as const;

/** The stored signal of a {@link SignalRow}. */
export function signalFromRow(row: SignalRow): JobSignal {
  return {
    id: Number(row.id),
    jobId: Number(row.job),
    name: row.name,
    payload: row.payload === null ? null : (JSON.parse(row.payload) as JsonValue),
    signalId: row.sid,
    createdAt: new Date(row.created),
  };
}

/** The statement that reads every signal sent to job `jobId`, oldest first. */
export function jobSignalsQuery(dialect: SqlDialect, jobId: number): SqlQuery {
  return { sql: READ_OF_JOB[dialect], params: [jobId] };
}

/**
 * A signal refused by the insert's trigger, as a `NudgeError`: `JOB_NOT_FOUND` for a job that
 * does not exist, `JOB_STATE_CONFLICT` for one that has finished. Both dialects' trigger messages
 * are recognised (PostgreSQL's `RAISE EXCEPTION`, SQLite's `RAISE(ABORT, …)`).
 * @returns `undefined` for any other error
 */
export function signalRefusal(error: unknown, jobId: number): NudgeError | undefined {
  const message = error instanceof Error ? error.message : undefined;
  if (message === undefined) return undefined;
  if (message.includes('a signal needs an unfinished job')) {
    return new NudgeError(
      'JOB_NOT_FOUND',
      `no job has id ${jobId}: a signal needs a job that exists and has not finished`,
    );
  }
  if (message.includes('a signal can no longer reach')) {
    return new NudgeError(
      'JOB_STATE_CONFLICT',
      `job ${jobId} has finished (SUCCEEDED, FAILED or CANCELLED): a signal can no longer reach it`,
    );
  }
  return undefined;
}

/**
 * The statements that send a signal (already validated, see `validateSignalJson`): the insert,
 * then, when it inserted nothing (`signalId` named a signal already sent), the read of that
 * signal. Run each yielded statement and pass its rows back; the same transaction (or none)
 * for both. A refusal of the trigger is the driver's error: map it with {@link signalRefusal}.
 * @returns the signal, `created: false` for a repeat of `signalId`
 * @throws Error when a repeat's signal cannot be read back (deleted with its job in between, or
 *   not visible to a `REPEATABLE READ` transaction that began before it was sent)
 */
export function* sendSignalPlan(
  dialect: SqlDialect,
  input: SignalInput,
): Generator<SqlQuery, SentSignal, readonly unknown[]> {
  const payload = input.payloadJson ?? 'null';
  const inserted = yield {
    sql: INSERT[dialect],
    params: [input.jobId, input.name, payload, input.signalId ?? null],
  };
  const [row] = inserted as readonly SignalRow[];
  if (row) return { signal: signalFromRow(row), created: true };
  if (input.signalId === undefined) throw new Error('the signal insert returned no row');
  const read = yield { sql: READ_BY_SIGNAL_ID[dialect], params: [input.jobId, input.signalId] };
  const [first] = read as readonly SignalRow[];
  if (!first) {
    throw new Error(
      `the signal ${JSON.stringify(input.signalId)} of job ${input.jobId} conflicted but could not be read back ` +
        '(deleted with its job in between, or not visible to this transaction): send it again',
    );
  }
  return { signal: signalFromRow(first), created: false };
}

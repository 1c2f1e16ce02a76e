import {
  NudgeError,
  storedTraceContext,
  type DebounceOption,
  type ThrottleOption,
  type Enqueuer,
} from '@nudge/core';
import type { EnqueueRow } from './job-columns.js';
import { pgInsertJobs } from './pg-insert-jobs.js';
import { returningList, type ReturnedRow, type Returning } from './returned-row.js';
import { sqliteInsertJobs } from './sqlite-insert-jobs.js';
import { sqliteTime, sqliteTimePlus } from './sqlite-clock.js';
import type { SqlDialect, SqlQuery } from './sql-query.js';

/**
 * Rounds of a dedupe step before it gives up: a round is lost only when a concurrent producer
 * changed the same key between two statements (a debounced job promoted or inserted, a window's
 * job deleted), and the next round sees that change.
 */
const DEDUPE_TRIES = 3;

/**
 * The debounce insert's upsert clause: a job of the same kind and debounce key that waits
 * `SCHEDULED` and never started (`started_at IS NULL`: the partial unique index
 * `nudge_jobs_debounce`) makes the insert write nothing. A job that already ran and waits for its
 * retry, or sleeps (`ctx.sleep`), is not the waiting one; one that was sent a signal before it
 * started still is.
 */
export const ON_DEBOUNCE_CONFLICT_DO_NOTHING =
  "ON CONFLICT (kind, debounce_key) WHERE debounce_key IS NOT NULL AND status = 'SCHEDULED' AND attempts = 0 AND started_at IS NULL DO NOTHING";

/**
 * A throttled or debounced job lost {@link DEDUPE_TRIES} rounds to concurrent producers of the
 * same key (or its window's job vanished each time). Enqueueing it again either creates it or
 * finds the job that holds the key.
 */
export class DedupeContentionError extends Error {
  constructor(kind: string, option: 'throttle' | 'debounce', key: string) {
    super(
      `the job of kind ${kind} and ${option} key ${JSON.stringify(key)} kept changing under concurrent ` +
        'producers (or its job was deleted in between): enqueue it again',
    );
    this.name = 'DedupeContentionError';
  }
}

/** Whether `job` takes the dedupe steps instead of a plain INSERT. */
export function isDeduped(job: EnqueueRow): boolean {
  return job.throttle !== undefined || job.debounce !== undefined;
}

/** The database clock plus bound ms, in the dialect's stored form; `$n` is PostgreSQL's placeholder. */
const clockPlus = (dialect: SqlDialect, placeholder: string): string =>
  dialect === 'postgres'
    ? `now() + ${placeholder}::double precision * interval '1 millisecond'`
    : sqliteTimePlus('?');

const clockNow = (dialect: SqlDialect): string => (dialect === 'postgres' ? 'now()' : sqliteTime());

/** `?` placeholders as the dialect wants them: `$1, $2, …` on PostgreSQL. */
function numbered(dialect: SqlDialect, sql: string): string {
  if (dialect === 'sqlite') return sql;
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

function insertJob(
  dialect: SqlDialect,
  job: EnqueueRow,
  returning: Returning,
  onConflict?: string,
): SqlQuery {
  return dialect === 'postgres'
    ? pgInsertJobs([job], returning, onConflict)
    : sqliteInsertJobs([job], returning, onConflict);
}

/** The waiting debounced job of a kind and key: `SCHEDULED` and never started. */
const DEBOUNCE_WAITING =
  "kind = ? AND debounce_key = ? AND status = 'SCHEDULED' AND attempts = 0 AND started_at IS NULL";

/**
 * Replaces the payload of the job of `kind` that waits `SCHEDULED` under `key` and never started
 * (`attempts = 0`), and moves its `run_at` to the database's now plus `delayMs`. The status stays
 * `SCHEDULED` (no transition). A job that ran and waits for its retry keeps its payload and backoff.
 * The trace context is replaced with the payload (none when this enqueue has none): the run then
 * belongs to the trace of the enqueue whose payload it processes. With `ownerKeyId`, only a job
 * that key enqueued is replaced.
 */
function debounceReplace(
  dialect: SqlDialect,
  job: EnqueueRow,
  debounce: DebounceOption,
  returning: Returning,
  ownerKeyId: string | undefined,
): SqlQuery {
  const owned = ownerKeyId === undefined ? '' : ' AND enqueued_by = ?';
  const sql =
    `UPDATE nudge_jobs SET payload = ?${dialect === 'postgres' ? '::jsonb' : ''}, trace_context = ?, ` +
    `run_at = ${clockPlus(dialect, '?')} WHERE ${DEBOUNCE_WAITING}${owned} RETURNING ${returningList(returning)}`;
  const payload = JSON.stringify(job.payload === undefined ? {} : job.payload);
  const params = [
    payload,
    storedTraceContext(job.traceContext) ?? null,
    debounce.delayMs,
    job.kind,
    debounce.key,
  ];
  if (ownerKeyId !== undefined) params.push(ownerKeyId);
  return { sql: numbered(dialect, sql), params };
}

/** The waiting debounced job of `kind` and `key` and the key that enqueued it, when one waits. */
function debounceHolder(dialect: SqlDialect, kind: string, key: string): SqlQuery {
  const sql = `SELECT id, kind, idempotency_key AS ikey, enqueued_by AS owner FROM nudge_jobs WHERE ${DEBOUNCE_WAITING}`;
  return { sql: numbered(dialect, sql), params: [kind, key] };
}

/**
 * The 409 for an enqueue whose debounce key holds a job another API key enqueued: replacing it
 * would let one producer overwrite another's payload and move its start.
 */
function debounceOwnedError(
  job: EnqueueRow,
  debounce: DebounceOption,
  id: unknown,
  owner: unknown,
): NudgeError {
  const by = typeof owner === 'string' ? `another API key (${owner})` : 'no API key (the service itself)';
  return new NudgeError(
    'DEBOUNCE_OWNED_BY_OTHER_KEY',
    `job ${String(id)} waits under debounce key ${JSON.stringify(debounce.key)} of kind ${job.kind}, enqueued by ${by}: only that key or an admin key may replace it; use a debounce key of your own`,
  );
}

/**
 * Opens the window of `kind` and `key` when none is open: inserts it, or reopens a closed one
 * (`closes_at` at or before now); returns a row when this statement opened it. An open window is
 * left as it is, but its row stays locked (PostgreSQL) to the end of the transaction, so a
 * concurrent producer waits, then finds it open.
 */
function throttleOpen(dialect: SqlDialect, kind: string, throttle: ThrottleOption): SqlQuery {
  const sql =
    `INSERT INTO nudge_throttle_windows (kind, key, opened_at, closes_at) ` +
    `VALUES (?, ?, ${clockNow(dialect)}, ${clockPlus(dialect, '?')}) ` +
    `ON CONFLICT (kind, key) DO UPDATE SET job_id = NULL, opened_at = excluded.opened_at, closes_at = excluded.closes_at ` +
    `WHERE nudge_throttle_windows.closes_at <= ${clockNow(dialect)} RETURNING kind`;
  return { sql: numbered(dialect, sql), params: [kind, throttle.key, throttle.windowMs] };
}

/** Records the job a window was opened for, in the transaction that opened it. */
function throttleLink(dialect: SqlDialect, kind: string, key: string, id: ReturnedRow['id']): SqlQuery {
  // Every statement of a plan returns rows (better-sqlite3 runs them with all()).
  const sql = 'UPDATE nudge_throttle_windows SET job_id = ? WHERE kind = ? AND key = ? RETURNING job_id';
  return { sql: numbered(dialect, sql), params: [id, kind, key] };
}

/** The job of the open window of `kind` and `key`. */
function throttleRead(dialect: SqlDialect, kind: string, key: string, returning: Returning): SqlQuery {
  const sql =
    `SELECT ${returningList(returning)} FROM nudge_jobs ` +
    'WHERE id = (SELECT job_id FROM nudge_throttle_windows WHERE kind = ? AND key = ?)';
  return { sql: numbered(dialect, sql), params: [kind, key] };
}

/** Deletes a window whose job is gone (deleted by hand or truncated), so the next round reopens it. */
function throttleForget(dialect: SqlDialect, kind: string, key: string): SqlQuery {
  const sql =
    'DELETE FROM nudge_throttle_windows WHERE kind = ? AND key = ? AND (job_id IS NULL OR ' +
    'NOT EXISTS (SELECT 1 FROM nudge_jobs j WHERE j.id = nudge_throttle_windows.job_id)) RETURNING kind';
  return { sql: numbered(dialect, sql), params: [kind, key] };
}

/** One job's outcome: its row, and whether these statements inserted it. */
export interface DedupedJob<Row extends ReturnedRow> {
  readonly row: Row;
  readonly created: boolean;
}

function* throttleSteps<Row extends ReturnedRow>(
  dialect: SqlDialect,
  job: EnqueueRow,
  throttle: ThrottleOption,
  returning: Returning,
): Generator<SqlQuery, DedupedJob<Row>, readonly Row[]> {
  for (let tries = 0; tries < DEDUPE_TRIES; tries += 1) {
    if ((yield throttleOpen(dialect, job.kind, throttle)).length > 0) {
      const [row] = yield insertJob(dialect, job, returning);
      if (row === undefined)
        throw new Error(`INSERT … RETURNING returned no row for the throttled job (kind ${job.kind})`);
      yield throttleLink(dialect, job.kind, throttle.key, row.id);
      return { row, created: true };
    }
    const [existing] = yield throttleRead(dialect, job.kind, throttle.key, returning);
    if (existing !== undefined) return { row: existing, created: false };
    yield throttleForget(dialect, job.kind, throttle.key);
  }
  throw new DedupeContentionError(job.kind, 'throttle', throttle.key);
}

function* debounceSteps<Row extends ReturnedRow>(
  dialect: SqlDialect,
  job: EnqueueRow,
  debounce: DebounceOption,
  returning: Returning,
  enqueuer: Enqueuer | undefined,
): Generator<SqlQuery, DedupedJob<Row>, readonly Row[]> {
  const scheduled: EnqueueRow = { ...job, delayMs: debounce.delayMs };
  const ownerKeyId = enqueuer === undefined || enqueuer.replacesOthers ? undefined : enqueuer.keyId;
  for (let tries = 0; tries < DEDUPE_TRIES; tries += 1) {
    const [replaced] = yield debounceReplace(dialect, job, debounce, returning, ownerKeyId);
    if (replaced !== undefined) return { row: replaced, created: false };
    const [inserted] = yield insertJob(dialect, scheduled, returning, ON_DEBOUNCE_CONFLICT_DO_NOTHING);
    if (inserted !== undefined) return { row: inserted, created: true };
    if (ownerKeyId !== undefined) {
      // The insert met a waiting job the replace skipped: another key's, unless it changed in between.
      const [holder] = (yield debounceHolder(dialect, job.kind, debounce.key)) as unknown as Array<{
        id: unknown;
        owner: unknown;
      }>;
      if (holder !== undefined && holder.owner !== ownerKeyId)
        throw debounceOwnedError(job, debounce, holder.id, holder.owner);
    }
  }
  throw new DedupeContentionError(job.kind, 'debounce', debounce.key);
}

/**
 * The statements that enqueue one throttled or debounced job (validated, so not both), as a
 * generator resumed with each statement's rows; they must run in one transaction. With an
 * `enqueuer` that is not an admin key, a debounce replaces only a job that key enqueued.
 *
 * - Throttle: open the window of (kind, key) unless one is open (`nudge_throttle_windows`,
 *   `INSERT … ON CONFLICT DO UPDATE … WHERE closes_at <= now`); the producer that opened it
 *   inserts the job and records its id on the window; any other reads the window's job back.
 * - Debounce: move the job that waits `SCHEDULED` under (kind, key) and never started (new
 *   payload, `run_at` now plus `delayMs`); when none waits, insert one at now plus `delayMs`, skipping it if a
 *   concurrent producer inserted one first (the partial unique index), then try again.
 *
 * Both are decided by the database: on PostgreSQL the window row's lock and the unique index make
 * concurrent producers wait for each other; on SQLite the transaction's first statement is a
 * write, so it holds the write lock.
 * @throws DedupeContentionError after {@link DEDUPE_TRIES} lost rounds
 * @throws NudgeError `DEBOUNCE_OWNED_BY_OTHER_KEY` when the debounced job that waits under the key
 *   was enqueued by another API key than `enqueuer`'s (or by none), and `enqueuer` is not an admin key
 */
export function* dedupeSteps<Row extends ReturnedRow>(
  dialect: SqlDialect,
  job: EnqueueRow,
  returning: Returning,
  enqueuer?: Enqueuer,
): Generator<SqlQuery, DedupedJob<Row>, readonly Row[]> {
  if (job.throttle !== undefined) return yield* throttleSteps<Row>(dialect, job, job.throttle, returning);
  if (job.debounce !== undefined)
    return yield* debounceSteps<Row>(dialect, job, job.debounce, returning, enqueuer);
  throw new Error(`job of kind ${job.kind} has neither throttle nor debounce`);
}

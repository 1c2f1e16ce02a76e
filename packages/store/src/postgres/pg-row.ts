import {
  NO_DEADLINE,
  type DependencyFailureMode,
  type Job,
  type JobStatus,
  type JsonValue,
} from '@nudge/core';
import type { JobColumn } from '../job-reads.js';
import { toAttemptError, type StoredAttemptError } from '../stored-attempt-error.js';

/** A `nudge_jobs` row as node-postgres returns it (int8 parsed to number, jsonb parsed). */
export interface PgJobRow {
  id: number;
  kind: string;
  queue: string;
  payload: JsonValue;
  status: string;
  priority: number;
  /** `Infinity` (a number) for `'infinity'`: a signal wait without a deadline. */
  run_at: Date | number;
  attempts: number;
  max_attempts: number;
  version: number;
  claimed_by: string | null;
  lease_expires_at: Date | null;
  last_error: string | null;
  idempotency_key: string | null;
  concurrency_key: string | null;
  throttle_key: string | null;
  debounce_key: string | null;
  result: JsonValue | null;
  progress: JsonValue | null;
  /** `[{attempt, at, error, instance}]`, `at` as ISO text. */
  errors: StoredAttemptError[];
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  /** The ids the job depends on; `null` when none. */
  depends_on: number[] | null;
  on_dependency_failure: DependencyFailureMode | null;
  has_dependents: boolean;
  has_steps: boolean;
  wait_signal: string | null;
}

/** Converts a PostgreSQL row to a {@link Job}. */
export function pgRowToJob(row: PgJobRow): Job {
  return {
    id: row.id,
    kind: row.kind,
    queue: row.queue,
    payload: row.payload,
    status: row.status as JobStatus,
    priority: row.priority,
    // A signal wait without a deadline has run_at 'infinity', which the driver reads as a number.
    runAt: row.run_at instanceof Date ? row.run_at : NO_DEADLINE,
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    version: row.version,
    claimedBy: row.claimed_by,
    leaseExpiresAt: row.lease_expires_at,
    lastError: row.last_error,
    idempotencyKey: row.idempotency_key,
    concurrencyKey: row.concurrency_key,
    throttleKey: row.throttle_key,
    debounceKey: row.debounce_key,
    result: row.result,
    progress: row.progress,
    errors: row.errors.map(toAttemptError),
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    dependsOn: row.depends_on ?? [],
    onDependencyFailure: row.on_dependency_failure,
    hasSteps: row.has_steps,
    waitSignal: row.wait_signal,
  };
}

/**
 * SQL for the database clock; `$n` is `NULL` in production and a fixed time in tests.
 * `now()` is the transaction's start, so every use within one statement agrees.
 */
export const pgNow = (param: string): string => `coalesce(${param}::timestamptz, now())`;

/** SQL for a bound number of milliseconds as an interval. */
export const pgMs = (param: string): string => `(${param}::double precision * interval '1 millisecond')`;

// The row type and JOB_COLUMNS list the same columns: a read that leaves payload or result out
// selects JOB_COLUMNS, so a column missing there would come back undefined.
const sameColumns: [Exclude<keyof PgJobRow, JobColumn>, Exclude<JobColumn, keyof PgJobRow>] extends [
  never,
  never,
]
  ? true
  : false = true;
void sameColumns;

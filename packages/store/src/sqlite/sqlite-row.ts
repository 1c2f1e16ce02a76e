import type { Generated, Selectable } from 'kysely';
import type { DependencyFailureMode, Job, JobStatus, JsonValue } from '@nudge/core';
import type { JobColumn } from '../job-reads.js';
import { toAttemptError, type StoredAttemptError } from '../stored-attempt-error.js';

/** The `nudge_jobs` table for Kysely: times and JSON are text; `Generated` columns have defaults. */
export interface SqliteJobsTable {
  id: Generated<number>;
  kind: string;
  queue: Generated<string>;
  payload: Generated<string>;
  status: Generated<string>;
  priority: Generated<number>;
  run_at: Generated<string>;
  attempts: Generated<number>;
  max_attempts: Generated<number>;
  version: Generated<number>;
  claimed_by: string | null;
  lease_expires_at: string | null;
  last_error: string | null;
  idempotency_key: string | null;
  concurrency_key: string | null;
  throttle_key: string | null;
  debounce_key: string | null;
  result: string | null;
  progress: string | null;
  /** JSON text: `[{attempt, at, error, instance}]`. */
  errors: Generated<string>;
  created_at: Generated<string>;
  started_at: string | null;
  finished_at: string | null;
  /** JSON text: the ids the job depends on; `null` when none. */
  depends_on: string | null;
  on_dependency_failure: DependencyFailureMode | null;
  /** 1 once some job depended on this one. */
  has_dependents: Generated<number>;
  /** 1 once the job recorded a step or was sent a signal. */
  has_steps: Generated<number>;
  /** The signal a `WAITING` job waits for; `null` otherwise. */
  wait_signal: string | null;
}

/** Kysely schema of the SQLite store. */
export interface SqliteSchema {
  nudge_jobs: SqliteJobsTable;
  nudge_queues: SqliteQueuesTable;
}

/** The `nudge_queues` table: queues an operator paused or resumed. */
export interface SqliteQueuesTable {
  name: string;
  /** 1 when paused. */
  paused: Generated<number>;
  updated_at: Generated<string>;
}

/** A `nudge_jobs` row as better-sqlite3 returns it. */
export type SqliteJobRow = Selectable<SqliteJobsTable>;

const date = (text: string | null): Date | null => (text === null ? null : new Date(text));

/** Converts a SQLite row to a {@link Job}. */
export function sqliteRowToJob(row: SqliteJobRow): Job {
  return {
    id: row.id,
    kind: row.kind,
    queue: row.queue,
    payload: JSON.parse(row.payload) as JsonValue,
    status: row.status as JobStatus,
    priority: row.priority,
    runAt: new Date(row.run_at),
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    version: row.version,
    claimedBy: row.claimed_by,
    leaseExpiresAt: date(row.lease_expires_at),
    lastError: row.last_error,
    idempotencyKey: row.idempotency_key,
    concurrencyKey: row.concurrency_key,
    throttleKey: row.throttle_key,
    debounceKey: row.debounce_key,
    result: row.result === null ? null : (JSON.parse(row.result) as JsonValue),
    progress: row.progress === null ? null : (JSON.parse(row.progress) as JsonValue),
    errors: (JSON.parse(row.errors) as StoredAttemptError[]).map(toAttemptError),
    createdAt: new Date(row.created_at),
    startedAt: date(row.started_at),
    finishedAt: date(row.finished_at),
    dependsOn: row.depends_on === null ? [] : (JSON.parse(row.depends_on) as number[]),
    onDependencyFailure: row.on_dependency_failure,
    hasSteps: row.has_steps === 1,
    waitSignal: row.wait_signal,
  };
}

/** Formats a `Date` the way the schema stores times (`YYYY-MM-DDTHH:MM:SS.sssZ`). */
export function toSqliteTime(value: Date | undefined): string | null {
  return value === undefined ? null : value.toISOString();
}

// The row type and JOB_COLUMNS list the same columns: a read that leaves payload or result out
// selects JOB_COLUMNS, so a column missing there would come back undefined.
const sameColumns: [Exclude<keyof SqliteJobRow, JobColumn>, Exclude<JobColumn, keyof SqliteJobRow>] extends [
  never,
  never,
]
  ? true
  : false = true;
void sameColumns;

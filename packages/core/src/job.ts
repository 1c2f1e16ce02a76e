import type { DependencyFailureMode } from './job-options.js';
import type { JobStatus } from './job-status.js';

/** Any value that survives `JSON.stringify` then `JSON.parse` unchanged. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * A job as the store reads it back. Times are `Date`s taken from the database clock.
 */
export interface Job {
  /** Row id, assigned by the database; ascending in insertion order. */
  readonly id: number;
  /** Handler name the job is dispatched to. */
  readonly kind: string;
  /** The named queue the job waits in; `'default'` unless the producer chose one. */
  readonly queue: string;
  readonly payload: JsonValue;
  readonly status: JobStatus;
  /** Lower runs first; default 0, negative allowed. */
  readonly priority: number;
  /** Earliest time the job may be claimed. */
  readonly runAt: Date;
  /** Attempts started so far (each claim adds one). */
  readonly attempts: number;
  readonly maxAttempts: number;
  /** Fencing token: bumped by every change of owner (claim, release, lease-expiry requeue). */
  readonly version: number;
  /** Worker id of the current or last owner, `null` before the first claim. */
  readonly claimedBy: string | null;
  readonly leaseExpiresAt: Date | null;
  readonly lastError: string | null;
  /** Unique per kind while the row is kept; `null` when the producer gave none. */
  readonly idempotencyKey: string | null;
  /** Limits how many jobs with this key run at once in a queue with `keyConcurrency`; `null` when none. */
  readonly concurrencyKey: string | null;
  /** The key of the producer's `throttle` option; `null` when the job was not throttled. */
  readonly throttleKey: string | null;
  /** The key of the producer's `debounce` option; `null` when the job was not debounced. */
  readonly debounceKey: string | null;
  readonly result: JsonValue | null;
  /** The latest progress the handler reported with `ctx.progress`, `null` before any. */
  readonly progress: JsonValue | null;
  /** The latest failed attempts' errors, oldest first, at most {@link MAX_ATTEMPT_ERRORS}. */
  readonly errors: readonly AttemptError[];
  readonly createdAt: Date;
  /** Start of the latest attempt. */
  readonly startedAt: Date | null;
  /** When the job reached `SUCCEEDED`, `FAILED` or `CANCELLED`. */
  readonly finishedAt: Date | null;
  /** Ids of the jobs this one waits for (`dependsOn`, resolved), in the producer's order; empty when none. */
  readonly dependsOn: readonly number[];
  /** What a dependency that failed or was cancelled does to this job; `null` without dependencies. */
  readonly onDependencyFailure: DependencyFailureMode | null;
  /**
   * Whether the job has recorded a durable step (`ctx.step`, a sleep, a signal wait) or been sent
   * a signal: only then has it rows of steps or signals to read.
   */
  readonly hasSteps: boolean;
  /**
   * The name of the signal a `WAITING` job waits for (`ctx.waitForSignal`): `runAt` is then its
   * deadline ({@link NO_DEADLINE} when it has none). `null` otherwise (a job `WAITING` for its
   * dependencies has none).
   */
  readonly waitSignal: string | null;
}

/**
 * The `runAt` of a job that waits for a signal without a deadline: the last millisecond of year
 * 9999 (SQLite stores it as is; PostgreSQL stores `'infinity'`, read back as this).
 */
export const NO_DEADLINE: Date = new Date('9999-12-31T23:59:59.999Z');

/** The queue of a job enqueued without one: the `queue` column's default in every migration. */
export const DEFAULT_QUEUE = 'default';

/** The priority of a job enqueued without one: the `priority` column's default in every migration. */
export const DEFAULT_PRIORITY = 0;

/** `max_attempts` of a job enqueued without one: the column's default in every migration. */
export const DEFAULT_MAX_ATTEMPTS = 5;

/** Failed attempts whose errors a job keeps (the oldest is dropped first). */
export const MAX_ATTEMPT_ERRORS = 10;

/** One failed attempt, as kept in a job's `errors`. */
export interface AttemptError {
  /** The attempt's number, from 1. */
  readonly attempt: number;
  /** When the failure was recorded (database clock). */
  readonly at: Date;
  /** The error message (at most `MAX_ERROR_CHARS` characters). */
  readonly error: string;
  /** The worker id of the instance that ran the attempt, `null` when unknown. */
  readonly instance: string | null;
}

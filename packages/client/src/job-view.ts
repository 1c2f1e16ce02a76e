import type { JobStatus, JsonValue } from '@nudge/core';

/** One failed attempt as the API shows it in a job's `errors`. */
export interface AttemptErrorView {
  /** The attempt's number, from 1. */
  readonly attempt: number;
  /** When the failure was recorded (database clock), ISO-8601 UTC. */
  readonly at: string;
  readonly error: string;
  /** The worker id of the instance that ran the attempt, `null` when unknown. */
  readonly instance: string | null;
}

/**
 * A job as the HTTP API shows it (`GET /jobs/:id`): times are ISO-8601 UTC strings with
 * milliseconds from the database clock, `null` where a value is not set yet. The same shape as
 * `@nudge/http`'s `JobView`, declared here so that the client does not depend on the server.
 *
 * @typeParam P - the payload type
 */
export interface JobView<P = JsonValue> {
  readonly id: number;
  readonly kind: string;
  /** The named queue the job waits in (`'default'` unless chosen). */
  readonly queue: string;
  readonly status: JobStatus;
  /** Attempts started so far. */
  readonly attempts: number;
  readonly maxAttempts: number;
  /** Lower runs first. */
  readonly priority: number;
  /** Earliest time the job may start. */
  readonly runAt: string;
  readonly payload: P;
  /** The handler's return value once `SUCCEEDED`, else `null`. */
  readonly result: JsonValue | null;
  /** The latest progress the handler reported, `null` before any. */
  readonly progress: JsonValue | null;
  /** Why the latest attempt failed. */
  readonly lastError: string | null;
  /** The latest failed attempts' errors, oldest first, at most 10. */
  readonly errors: readonly AttemptErrorView[];
  /** The producer's idempotency key, unique per kind while the job is kept. */
  readonly idempotencyKey: string | null;
  /** The job's concurrency key (see `keyConcurrency` of `PATCH /queues/:name`); `null` when none. */
  readonly concurrencyKey: string | null;
  /** The key of the producer's `throttle` option, `null` when not throttled. */
  readonly throttleKey: string | null;
  /** The key of the producer's `debounce` option, `null` when not debounced. */
  readonly debounceKey: string | null;
  /** When the job was enqueued. */
  readonly createdAt: string;
  /** Start of the latest attempt. */
  readonly startedAt: string | null;
  /** When the job reached `SUCCEEDED`, `FAILED` or `CANCELLED`. */
  readonly finishedAt: string | null;
  /** Ids of the jobs this one waits for (`dependsOn`, batch indexes resolved); empty when none. */
  readonly dependsOn: readonly number[];
  /** What a dependency that failed or was cancelled does to it; `null` without dependencies. */
  readonly onDependencyFailure: 'cancel' | 'run' | null;
  /** `GET /jobs/:id` of a job with dependencies: the ids among `dependsOn` not finished yet. */
  readonly blockedBy?: readonly number[];
  /**
   * `GET /jobs/:id` of a job with durable steps (`ctx.step`, `ctx.sleep`, `ctx.waitForSignal`) or
   * signals: its steps, in the order first recorded (without their results).
   */
  readonly steps?: readonly StepView[];
  /** `GET /jobs/:id` of a job that waits: for a signal, for its dependencies, or until it wakes. */
  readonly waitingFor?: WaitingForView;
}

/** One durable step of a job as `GET /jobs/:id` shows it. */
export interface StepView {
  /** The name the handler gave it, unique within the job. */
  readonly name: string;
  /** `step` for `ctx.step`, `sleep` for `ctx.sleep` or `ctx.sleepUntil`, `signal` for `ctx.waitForSignal`. */
  readonly type: 'step' | 'sleep' | 'signal';
  /**
   * A step is `SUCCEEDED` (never run again) or `FAILED` (run again by the next attempt); a sleep
   * `SLEEPING`; a signal wait `WAITING`, or `TIMED_OUT` once its deadline passed.
   */
  readonly status: 'SUCCEEDED' | 'FAILED' | 'SLEEPING' | 'WAITING' | 'TIMED_OUT';
  /** The attempt that last wrote it. */
  readonly attempt: number;
  /** ISO-8601 UTC, database clock. */
  readonly startedAt: string;
  /** `null` for a sleep or a wait. */
  readonly endedAt: string | null;
  /** `endedAt` minus `startedAt`, in ms; `null` while it has not ended. */
  readonly durationMs: number | null;
  /** A `FAILED` step's error message. */
  readonly error: string | null;
  /** A sleep's wake-up time or a signal wait's deadline. */
  readonly wakeAt: string | null;
}

/**
 * What a job waits for: a signal (`deadline` `null`: none), the ids of its unfinished
 * dependencies, or the wake-up time of its sleep.
 */
export type WaitingForView =
  | { readonly signal: string; readonly deadline: string | null }
  | { readonly dependencies: readonly number[] }
  | { readonly wakeAt: string };

/**
 * A job as `GET /jobs` lists it: its {@link JobView} with `payload` and `result` only when the
 * list asked for them (`fields` of `list`).
 */
export type ListedJobView<P = JsonValue> = Omit<JobView<P>, 'payload' | 'result'> &
  Partial<Pick<JobView<P>, 'payload' | 'result'>>;

/** A job view from `POST /jobs` or `POST /jobs/batch`, with whether that request created it. */
export type EnqueuedJobView<P = JsonValue> = JobView<P> & {
  /**
   * `false` when nothing was created: the job existed under its idempotency key, or is the job
   * of an open throttle window, or is the waiting debounced job this enqueue replaced.
   */
  readonly created: boolean;
};

/** Statuses a job never leaves: `SUCCEEDED`, `FAILED`, `CANCELLED`. */
export function isTerminalStatus(status: JobStatus): boolean {
  switch (status) {
    case 'SUCCEEDED':
    case 'FAILED':
    case 'CANCELLED':
      return true;
    case 'WAITING':
    case 'SCHEDULED':
    case 'PENDING':
    case 'RUNNING':
      return false;
  }
}

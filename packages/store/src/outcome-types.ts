import type { JobOptions, JobStatus } from '@nudge/core';
import type { JobLease } from './claim-types.js';

// The inputs and results of recording what an attempt did (see store.ts).

/**
 * A follow-up job recorded by `ctx.enqueue`, inserted with its parent's completion: the job
 * options of `@nudge/core`, with the payload as JSON text (not parsed again; `'{}'` when omitted).
 * A `delayMs` counts from the database's now at completion. A parent's follow-ups are one batch:
 * `dependsOn` may give `{ index: n }` of an earlier one. Dependencies are read when the completion
 * is written, and an id that names no job then counts as a dependency that did not succeed (with
 * `onDependencyFailure: 'cancel'` the follow-up is inserted `CANCELLED`, `last_error`
 * `dependency <id> does not exist`): the completion is never refused for it.
 */
export interface FollowUpInput extends JobOptions {
  /** Handler name. */
  readonly kind: string;
  /** The payload as JSON text. @defaultValue `'{}'` */
  readonly payloadJson?: string;
  /** The trace context it is enqueued in (`trace_context`, see `EnqueueInput`). @defaultValue none */
  readonly traceContext?: string;
}

/** A successful attempt to record. */
export interface CompleteInput extends JobLease {
  /** The job's `result` as JSON text, or `null` for SQL `NULL`. */
  readonly resultJson: string | null;
  /** The attempt's last progress as JSON text, written with the result; omitted keeps `progress`. */
  readonly progressJson?: string;
  /**
   * Jobs to insert in the same transaction as the completion, only when it is recorded (the lease
   * still held): a fenced-out completion enqueues nothing.
   */
  readonly followUps?: readonly FollowUpInput[];
}

/** A progress value to record for a running attempt. */
export interface ProgressInput extends JobLease {
  /** The progress as JSON text (see `ctx.progress`). */
  readonly progressJson: string;
}

/** A failed attempt to record. */
export interface FailInput extends JobLease {
  /** Stored as `last_error`. */
  readonly error: string;
  /**
   * Delay before the retry, from the database's now, in ms; ignored when no attempt is left. A
   * delay above 0 leaves the job `SCHEDULED`, 0 makes it `PENDING` at once.
   */
  readonly retryDelayMs: number;
  /** Fail the job now, whatever attempts remain (unknown kind, bad payload). */
  readonly permanent?: boolean;
  /** The attempt's last progress as JSON text, written with the failure; omitted keeps `progress`. */
  readonly progressJson?: string;
}

/** A recorded failure and the status it left the job in (a retry, or `FAILED`). */
export interface FailOutcome extends JobLease {
  readonly status: Extract<JobStatus, 'SCHEDULED' | 'PENDING' | 'FAILED'>;
}

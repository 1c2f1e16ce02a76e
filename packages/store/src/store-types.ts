import type { Job, JobInput, JobOptions, JsonValue, JobStatus } from '@nudge/core';

// The inputs and results of the Store methods (see store.ts); the instance registry's are in
// instance-types.ts, the stats' in stats-types.ts.

/**
 * A new job: the job contract of `@nudge/core` (`JobInput`), checked by every enqueue
 * (`validateJobInput`). Omitted fields take the database defaults. A `runAt` after the database's
 * now, or a `delayMs` above 0 (counted inside the insert, `now() + delay`), stores the job
 * `SCHEDULED`; such a job is never claimed by {@link Store.enqueueAndClaim}.
 */
export type EnqueueInput = JobInput<string, JsonValue>;

/** A job as an enqueue left it, and whether this call wrote it (`false`: its key existed). */
export type EnqueuedJob = Job & { readonly created: boolean };

/** What {@link Store.listJobs} selects. */
export interface ListJobsQuery {
  /** Only these ids (the other filters are ignored). */
  readonly ids?: readonly number[];
  readonly status?: JobStatus;
  readonly kind?: string;
  readonly queue?: string;
  /** Only ids below this one: the last id of the previous page. */
  readonly beforeId?: number;
  /** Most jobs returned. */
  readonly limit: number;
}

/**
 * What a cancel or a retry did: `changed` (the job moved; `previous` is the status it left),
 * `conflict` (its status does not allow the move; `job` is as it is), or `not-found`.
 */
export type JobCommandResult =
  | { readonly outcome: 'changed'; readonly job: Job; readonly previous: JobStatus }
  | { readonly outcome: 'conflict'; readonly job: Job }
  | { readonly outcome: 'not-found' };

/** A named queue as operators see it: paused or not, and its unfinished jobs by status. */
export interface QueueState {
  readonly name: string;
  readonly paused: boolean;
  /** When it was last paused or resumed; `null` if never. */
  readonly updatedAt: Date | null;
  readonly scheduled: number;
  readonly pending: number;
  readonly running: number;
}

/** What {@link Store.listenForNewJobs} calls. */
export interface NewJobsHandlers {
  /** Runnable jobs were inserted, or the listener (re)connected and some may have been. */
  readonly onWake: () => void;
  /** The listener is listening: at the start, and again after each reconnection. */
  readonly onReady?: (reconnected: boolean) => void;
}

/** A running {@link Store.listenForNewJobs} listener. */
export interface NewJobsListener {
  /** Stops listening and closes the connection; no wake follows. */
  close(): Promise<void>;
}

/** Identifies one attempt: the row plus the fencing token the claim returned. */
export interface JobLease {
  readonly id: number;
  readonly version: number;
}

/** Kinds that share one claim limit, such as the kinds of one execution class. */
export interface ClaimGroup {
  /** Kinds the claimer can run; a job of another kind is never claimed. Empty claims nothing. */
  readonly kinds: readonly string[];
  /** Most rows to claim for this group; 0 claims nothing (and reads nothing). */
  readonly limit: number;
  /**
   * Queues to claim from (besides those of `ClaimInput.queueLimits`). @defaultValue every queue
   */
  readonly queues?: readonly string[];
}

/** Input of {@link Store.claim}. */
export interface ClaimInput {
  /** Written to `claimed_by`; unique per engine instance. */
  readonly workerId: string;
  /** Lease length from the database's now, in ms. */
  readonly leaseMs: number;
  /** One limit per group of kinds; all groups are claimed in one round trip. */
  readonly groups: readonly ClaimGroup[];
  /**
   * Capped queues, each with the most of its rows this claim may take over all groups (what is
   * left of its cap on the claiming instance; 0 takes none). Every group may claim from them, and
   * no group claims from them otherwise. @defaultValue none
   */
  readonly queueLimits?: Readonly<Record<string, number>>;
  /** Overrides the database clock; tests only. */
  readonly now?: Date;
}

/**
 * A job as a claim returns it: what the engine needs to run the attempt and fence its writes,
 * nothing more, so that a large claim stays cheap to read. The payload stays JSON text: the
 * worker thread parses it, not the claiming thread.
 */
export interface ClaimedJob extends JobLease {
  readonly kind: string;
  readonly queue: string;
  /** The payload as JSON text. */
  readonly payloadJson: string;
  /** This attempt's number, from 1 (the row's `attempts` after the claim). */
  readonly attempt: number;
  /**
   * How long the job waited between becoming due (`run_at`: the enqueue time of a job that was
   * not delayed) and this claim, in ms, by the database clock. Absent when the claim did not
   * measure it; `0` for a job inserted already claimed.
   */
  readonly waitMs?: number;
}

/** Input of {@link Store.enqueueAndClaim}: who would own the row. */
export interface SelfClaimInput {
  /** Written to `claimed_by`. */
  readonly workerId: string;
  /** Lease length from the database's now, in ms. */
  readonly leaseMs: number;
  /**
   * Kinds that compete with the new job for the same slots: when a due `PENDING` job of one of
   * them comes at or before the new job in claim order, the new job is not claimed.
   */
  readonly kinds: readonly string[];
}

/**
 * A follow-up job recorded by `ctx.enqueue`, inserted with its parent's completion: the job
 * options of `@nudge/core`, with the payload as JSON text (not parsed again; `'{}'` when omitted).
 * A `delayMs` counts from the database's now at completion.
 */
export interface FollowUpInput extends JobOptions {
  /** Handler name. */
  readonly kind: string;
  /** The payload as JSON text. @defaultValue `'{}'` */
  readonly payloadJson?: string;
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

/** Input of {@link Store.sweepExpired}. */
export interface SweepInput {
  /** Retry delay in ms for a job whose lease expired after `attempts` attempts. */
  readonly retryDelayMs: (job: { kind: string; attempts: number }) => number;
  /** Most rows handled in one call. @defaultValue 1000 */
  readonly limit?: number;
  /** Overrides the database clock; tests only. */
  readonly now?: Date;
}

/** What one sweep did. */
export interface SweepResult {
  /** Rows put back to wait for a retry (`SCHEDULED` after a backoff, or `PENDING`). */
  readonly requeued: number;
  /** Rows moved to `FAILED` because their attempts were used up. */
  readonly failed: number;
  /** Each recovered row's kind and queue, and whether it `failed` (else it was requeued). */
  readonly recovered: readonly RecoveredJob[];
}

/** A job the sweep recovered; see {@link SweepResult}. */
export interface RecoveredJob {
  readonly kind: string;
  readonly queue: string;
  /** Moved to `FAILED` (attempts used up) rather than requeued. */
  readonly failed: boolean;
}

/** Input of {@link Store.promoteScheduled}. */
export interface PromoteInput {
  /** Most rows promoted in one call. @defaultValue 1000 */
  readonly limit?: number;
  /** Overrides the database clock; tests only. */
  readonly now?: Date;
}

/** What one promotion did. */
export interface PromoteResult {
  /** `SCHEDULED` rows made `PENDING` because their `run_at` has passed. */
  readonly promoted: number;
  /**
   * Time until the next `SCHEDULED` row comes due, in ms from the database's now (0 or more), or
   * `null` when none is scheduled.
   */
  readonly nextDueInMs: number | null;
}

/** Input of {@link Store.failUnhandledKinds}. */
export interface UnhandledKindsInput {
  /** How long a job may be due while no live instance handles its kind, in ms. */
  readonly graceMs: number;
  /** An instance is live when it was seen within this many ms. */
  readonly instanceTtlMs: number;
  /** Most rows failed in one call. @defaultValue 1000 */
  readonly limit?: number;
  /** Overrides the database clock; tests only. */
  readonly now?: Date;
}

/** What {@link Store.failUnhandledKinds} did. */
export interface UnhandledKindsResult {
  /** Jobs moved to `FAILED`. */
  readonly failed: number;
  /** Their kinds, sorted, without repeats. */
  readonly kinds: string[];
}

/** Schema version applied to the database against the newest this code knows. */
export interface SchemaState {
  readonly applied: number;
  readonly latest: number;
}

/** Input of {@link Store.activity}. */
export interface ActivityQuery {
  /** How far back from the database's now, in ms (e.g. 3,600,000 for the last hour). */
  readonly windowMs: number;
  /** Width of one bucket, in ms (e.g. 60,000 for one per minute). */
  readonly bucketMs: number;
  /** Overrides the database clock; tests only. */
  readonly now?: Date;
}

/** Jobs that finished within one bucket of {@link Store.activity}. */
export interface ActivityBucket {
  /** Start of the bucket (database clock). */
  readonly start: Date;
  readonly succeeded: number;
  readonly failed: number;
  /**
   * Mean and largest enqueue → start wait, in ms, of the bucket's jobs that finished on their
   * first attempt (a retried job's wait includes its backoff); `null` when there was none.
   */
  readonly latencyAvgMs: number | null;
  readonly latencyMaxMs: number | null;
}

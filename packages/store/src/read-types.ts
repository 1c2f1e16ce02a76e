import type { Job, JobStatus, JsonValue } from '@nudge/core';

// The inputs and results of reading and commanding jobs and queues (see store.ts).

/** What {@link Store.listJobs} selects. */
export interface ListJobsQuery {
  /** Only these ids (the other filters are ignored). */
  readonly ids?: readonly number[];
  readonly status?: JobStatus;
  readonly kind?: string;
  readonly queue?: string;
  /**
   * Only jobs with this `concurrencyKey`. Like `kind` and `queue`, read along the primary key
   * newest first until `limit` match: no index of its own, which every write would pay for.
   */
  readonly concurrencyKey?: string;
  /** Only ids below this one: the last id of the previous page. */
  readonly beforeId?: number;
  /** Most jobs returned. */
  readonly limit: number;
  /**
   * Whether to read each job's `payload` and `result`; a job read without one has it `null`.
   * Leaving them out keeps a page of large jobs small to read and to hold.
   * @defaultValue `{ payload: true, result: true }`
   */
  readonly columns?: { readonly payload: boolean; readonly result: boolean };
}

/** What {@link Store.listDependents} selects. */
export interface ListDependentsQuery {
  /** The dependency: its dependents are listed. */
  readonly id: number;
  /** Only dependents with a higher id: the last id of the previous page. */
  readonly afterId?: number;
  /** Most jobs returned. */
  readonly limit: number;
}

/**
 * A page of names sorted by name (the database's order for text): those after `after` (from the
 * first when absent), at most `limit`.
 */
export interface NamePage {
  /** Only names after this one: the last name of the previous page. */
  readonly after?: string;
  /** Most names returned; 0 returns none. */
  readonly limit: number;
}

/** What {@link Store.listQueues} lists: a page of queues, or only those with a record. */
export interface ListQueuesQuery extends Partial<NamePage> {
  /**
   * Only queues with a record in `nudge_queues` (paused, resumed or given limits at least once),
   * whatever their jobs. @defaultValue false
   */
  readonly recordedOnly?: boolean;
}

/** A dependency as {@link Store.dependencyOutcomes} reads it: its status, and its result once `SUCCEEDED`. */
export interface DependencyOutcome {
  readonly status: JobStatus;
  /** The handler's return value (`null` unless `SUCCEEDED`, and when results were not asked for). */
  readonly result: JsonValue | null;
  /** With `times`: when the job was last due (`run_at`), by the database clock. */
  readonly runAt?: Date;
  /** With `times`: when the job finished (`finished_at`), by the database clock; `null` if it has not. */
  readonly finishedAt?: Date | null;
}

/** Options of {@link Store.dependencyOutcomes}. */
export interface DependencyOutcomeOptions {
  /** Read each job's result too. */
  readonly results: boolean;
  /** Read each job's `runAt` and `finishedAt` too. @defaultValue false */
  readonly times?: boolean;
}

/**
 * What a cancel or a retry did: `changed` (the job moved; `previous` is the status it left),
 * `conflict` (its status does not allow the move; `job` is as it is), `blocked` (a retry of a
 * job that cancels on a failed dependency while `dependency` ended `FAILED` or `CANCELLED`, or no
 * longer exists: `status` null; it would be cancelled again, so it is left as it is), or
 * `not-found`.
 */
export type JobCommandResult =
  | { readonly outcome: 'changed'; readonly job: Job; readonly previous: JobStatus }
  | { readonly outcome: 'conflict'; readonly job: Job }
  | {
      readonly outcome: 'blocked';
      readonly job: Job;
      readonly dependency: { readonly id: number; readonly status: 'FAILED' | 'CANCELLED' | null };
    }
  | { readonly outcome: 'not-found' };

/** A queue's rate limit: at most `limit` jobs started in any window of `intervalMs` ms. */
export interface QueueRateLimit {
  /** Most starts per window; an integer from 1. */
  readonly limit: number;
  /** The window's length, in ms; an integer from 1. */
  readonly intervalMs: number;
}

/**
 * A queue's cluster-wide limits, each enforced inside the claim statement across every
 * instance; `null` is no limit.
 */
export interface QueueLimits {
  /** Most jobs of the queue `RUNNING` at once. */
  readonly concurrency: number | null;
  /** Most jobs of the queue started in any window, by the database clock (a sliding window). */
  readonly rateLimit: QueueRateLimit | null;
  /** Most jobs with one `concurrencyKey` `RUNNING` at once; jobs without a key are not held. */
  readonly keyConcurrency: number | null;
}

/** A change of {@link QueueLimits}: an absent field keeps its value, `null` removes the limit. */
export type QueueLimitsPatch = Partial<QueueLimits>;

/**
 * A named queue as operators see it: paused or not, its cluster-wide limits, and its unfinished
 * jobs by status.
 */
export interface QueueState extends QueueLimits {
  readonly name: string;
  readonly paused: boolean;
  /** When it was last paused, resumed or given limits; `null` if never. */
  readonly updatedAt: Date | null;
  /** Jobs waiting for their dependencies (`WAITING`). */
  readonly waiting: number;
  /** Jobs not due yet (`SCHEDULED`). */
  readonly scheduled: number;
  /** Jobs due and not claimed (`PENDING`). */
  readonly pending: number;
  /** Jobs running now (`RUNNING`). */
  readonly running: number;
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

import type { JobStatus } from '@nudge/core';
import type { RetrySteps } from './retry-steps.js';

// The inputs and results of the bulk commands (see store.ts).

/**
 * Most rows one statement of a bulk command changes: each page is its own short statement (its
 * own transaction), so a command over a million jobs never holds a long lock.
 */
export const BULK_PAGE_SIZE = 1000;

/**
 * Which finished jobs {@link Store.retryJobs} moves back to `PENDING`, and what it does with their
 * steps ({@link RetrySteps}): `fromStep` clears that step and the ones after it in each job that
 * recorded a step of that name, and keeps every step of a job that did not (it failed before
 * reaching that step, so it runs it afresh anyway); `resetSteps` clears every step of each job.
 */
export interface RetryJobsFilter extends RetrySteps {
  /** `FAILED` or `CANCELLED`. */
  readonly status: JobStatus;
  readonly kind?: string;
  readonly queue?: string;
  /** Only jobs finished at or after this time. */
  readonly finishedAfter?: Date;
  /** Only jobs finished before this time. */
  readonly finishedBefore?: Date;
  /** Most jobs retried in all; a whole number ≥ 1. @defaultValue no limit */
  readonly limit?: number;
}

/** Which unfinished jobs {@link Store.cancelJobs} cancels. */
export interface CancelJobsFilter {
  /**
   * Statuses to cancel, each one a job can be cancelled from (`CANCELLABLE_STATUSES` of
   * `@nudge/core`). @defaultValue all of them
   */
  readonly statuses?: readonly JobStatus[];
  readonly kind?: string;
  readonly queue?: string;
  /** Only jobs created at or after this time. */
  readonly createdAfter?: Date;
  /** Only jobs created before this time. */
  readonly createdBefore?: Date;
  /** Most jobs cancelled in all; a whole number ≥ 1. @defaultValue no limit */
  readonly limit?: number;
}

/** A job a bulk cancel took from `RUNNING`: the instance in `claimedBy` aborts its attempt. */
export interface CancelledRunningJob {
  readonly id: number;
  /** The version after the cancel; the attempt ran under `version - 1`. */
  readonly version: number;
  readonly claimedBy: string | null;
}

/** How many jobs of one kind and queue a bulk command changed. */
export interface BulkCommandGroup {
  readonly kind: string;
  readonly queue: string;
  readonly changed: number;
}

/** What {@link Store.retryJobs} or {@link Store.cancelJobs} did, over all its pages. */
export interface BulkCommandResult {
  /** Jobs changed in all. */
  readonly changed: number;
  /**
   * Jobs the command would have changed that the database refused, each for a reason of its row
   * (see `Store.onIsolatedWrite`): left as they were, with `last_error` saying why.
   */
  readonly isolated: number;
  /** The same count per kind and queue, in no particular order. */
  readonly groups: readonly BulkCommandGroup[];
  /** Jobs cancelled while `RUNNING` (always empty for a retry). */
  readonly running: readonly CancelledRunningJob[];
  /** Statements (pages) that changed jobs, each at most {@link BULK_PAGE_SIZE} rows. */
  readonly pages: number;
}

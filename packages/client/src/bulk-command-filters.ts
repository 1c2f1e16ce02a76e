import type { JobStatus } from '@nudge/core';

/**
 * What a retry does with the steps the job recorded (`ctx.step`, `ctx.sleep`,
 * `ctx.waitForSignal`): without either field every step is kept, so the job resumes where it
 * failed and its finished steps return their stored results. Signals sent to it are kept.
 */
export interface RetryStepsOptions {
  /**
   * Clears the step of this name and every step the job recorded after it, so they run again;
   * the steps before it are kept. 1 to 200 characters. Not with `resetSteps`.
   */
  readonly fromStep?: string;
  /** `true` clears every step: the job runs from the top. Not with `fromStep`. @defaultValue false */
  readonly resetSteps?: boolean;
}

/**
 * Which jobs {@link NudgeClient.retryAll} retries (the body of `POST /jobs/retry`), and what
 * becomes of their steps: `fromStep` clears that step and the ones after it in each job that
 * recorded it (a job that did not keeps all its steps); `resetSteps` clears every job's steps.
 */
export interface RetryAllFilter extends RetryStepsOptions {
  /** `FAILED` or `CANCELLED`. */
  readonly status: JobStatus;
  readonly kind?: string;
  readonly queue?: string;
  /** Only jobs finished at or after this time (a `Date`, or a date-time with a time zone). */
  readonly finishedAfter?: Date | string;
  /** Only jobs finished before this time. */
  readonly finishedBefore?: Date | string;
  /** Most jobs retried in all; a whole number ≥ 1. @defaultValue every matching job */
  readonly limit?: number;
}

/** Which jobs {@link NudgeClient.cancelAll} cancels (the body of `POST /jobs/cancel`). */
export interface CancelAllFilter {
  /** One status or several a job can be cancelled from. @defaultValue every unfinished status */
  readonly status?: JobStatus | readonly JobStatus[];
  readonly kind?: string;
  readonly queue?: string;
  /** Only jobs created at or after this time (a `Date`, or a date-time with a time zone). */
  readonly createdAfter?: Date | string;
  /** Only jobs created before this time. */
  readonly createdBefore?: Date | string;
  /** Most jobs cancelled in all; a whole number ≥ 1. @defaultValue every matching job */
  readonly limit?: number;
}

/** `filter` as a JSON body: dates as ISO strings. */
export function bulkFilterBody(filter: RetryAllFilter | CancelAllFilter): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(filter).map(([key, value]) => [key, value instanceof Date ? value.toISOString() : value]),
  );
}

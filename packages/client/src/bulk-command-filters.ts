import type { JobStatus } from '@nudge/core';

/** Which jobs {@link NudgeClient.retryAll} retries (the body of `POST /jobs/retry`). */
export interface RetryAllFilter {
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

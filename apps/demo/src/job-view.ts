/** A job state as `GET /jobs/:id` returns it. */
export type JobState = 'PENDING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELLED';

/** The body of `GET /jobs/:id`; times are ISO-8601 strings from the database clock. */
export interface JobView {
  readonly id: number;
  readonly kind: string;
  readonly status: JobState;
  readonly attempts: number;
  readonly maxAttempts: number;
  readonly priority: number;
  readonly runAt: string;
  readonly payload: unknown;
  /** The handler's return value once SUCCEEDED, else `null`. */
  readonly result: unknown;
  /** The last attempt's error message, if any. */
  readonly lastError: string | null;
  readonly createdAt: string;
  /** Start of the latest attempt; `null` before the first. */
  readonly startedAt: string | null;
  readonly finishedAt: string | null;
}

/** Whether a job has stopped for good: SUCCEEDED, FAILED or CANCELLED. */
export function isFinished(view: JobView): boolean {
  switch (view.status) {
    case 'SUCCEEDED':
    case 'FAILED':
    case 'CANCELLED':
      return true;
    case 'PENDING':
    case 'RUNNING':
      return false;
  }
}

import type { ExecutionClass, Logger } from '@nudge/core';
import type { ClaimedJob } from '@nudge/store';
import { jobLogFields } from './job-log-fields.js';

/** How a thread ended, as {@link logThreadLoss} words it. */
export interface ThreadLoss {
  readonly execution: ExecutionClass;
  /** What ended the thread (an error, an exit, a termination). */
  readonly cause: unknown;
  /** The engine ended it (a timeout past the abort grace, a lost lease, shutdown). */
  readonly terminated: boolean;
  /** One of its attempts had timed out: its handler ignored the abort signal. */
  readonly timedOut: boolean;
}

/** Logs one warning for a thread that ended, with the jobs that were on it. */
export function logThreadLoss(logger: Logger, loss: ThreadLoss, jobs: readonly ClaimedJob[]): void {
  const { execution, cause, terminated, timedOut } = loss;
  logger.warn(
    { err: cause, execution, terminated, jobs: jobs.map(jobLogFields) },
    terminated
      ? `terminated a ${execution} thread${timedOut ? ' running a job that ignored its abort signal' : ''}`
      : `a ${execution} thread died; it was replaced`,
  );
}

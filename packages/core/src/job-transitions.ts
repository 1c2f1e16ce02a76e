import type { JobStatus } from './job-status.js';

/**
 * Every status change a job row may make, and the only ones: `JOB_TRANSITIONS[from]` lists the
 * statuses a row in `from` may move to. Each store write keeps to it (a test records every status
 * change the stores make, on both dialects, and checks it against this table).
 *
 * - `WAITING → PENDING | SCHEDULED`: the last dependency finished (`SCHEDULED` while the job's own
 *   `run_at` is still ahead).
 * - `WAITING → CANCELLED`: a dependency ended `FAILED` or `CANCELLED` (`onDependencyFailure:
 *   'cancel'`), or `POST /jobs/:id/cancel`.
 * - `SCHEDULED → PENDING`: the scheduler promotes a job whose `run_at` has passed.
 * - `PENDING → RUNNING`: a claim.
 * - `RUNNING → SUCCEEDED`: the handler returned.
 * - `RUNNING → SCHEDULED | PENDING`: a failed attempt waits for its retry (or the lease expired,
 *   or the instance released it on shutdown, or a durable sleep ends the attempt uncharged).
 * - `RUNNING → WAITING`: `ctx.waitForSignal` ends the attempt uncharged until the signal comes
 *   (`WAITING → PENDING` in the signal's transaction) or its deadline passes (the promotion).
 * - `RUNNING → FAILED`: attempts used up, a permanent failure, or an expired lease on the last attempt.
 * - `PENDING → FAILED`: no live instance handles the kind.
 * - `WAITING | SCHEDULED | PENDING | RUNNING → CANCELLED`: `POST /jobs/:id/cancel`.
 * - `FAILED | CANCELLED → PENDING`: `POST /jobs/:id/retry`, with fresh attempts.
 * - `FAILED | CANCELLED → WAITING`: the same retry of a job with a dependency that has not
 *   finished, or that the same `POST /jobs/retry` retries too; it waits for it again.
 *
 * `SUCCEEDED` is final. A new row starts `SCHEDULED`, `PENDING`, `RUNNING` (inserted already
 * claimed by the instance that received it), `WAITING` (a dependency has not finished) or
 * `CANCELLED` (a dependency had already failed, with `onDependencyFailure: 'cancel'`).
 */
export const JOB_TRANSITIONS: Readonly<Record<JobStatus, readonly JobStatus[]>> = {
  WAITING: ['PENDING', 'SCHEDULED', 'CANCELLED'],
  SCHEDULED: ['PENDING', 'CANCELLED'],
  PENDING: ['RUNNING', 'FAILED', 'CANCELLED'],
  RUNNING: ['SUCCEEDED', 'SCHEDULED', 'PENDING', 'WAITING', 'FAILED', 'CANCELLED'],
  SUCCEEDED: [],
  FAILED: ['PENDING', 'WAITING'],
  CANCELLED: ['PENDING', 'WAITING'],
};

/** Statuses a new row may be inserted in. */
export const INITIAL_STATUSES: readonly JobStatus[] = [
  'SCHEDULED',
  'PENDING',
  'RUNNING',
  'WAITING',
  'CANCELLED',
];

/** Whether a row in `from` may move to `to` (see {@link JOB_TRANSITIONS}). */
export function canTransition(from: JobStatus, to: JobStatus): boolean {
  return JOB_TRANSITIONS[from].includes(to);
}

/** Statuses `POST /jobs/:id/cancel` applies to. */
export const CANCELLABLE_STATUSES: readonly JobStatus[] = (
  Object.keys(JOB_TRANSITIONS) as JobStatus[]
).filter((from) => canTransition(from, 'CANCELLED'));

/** Statuses `POST /jobs/:id/retry` applies to. */
export const RETRYABLE_STATUSES: readonly JobStatus[] = ['FAILED', 'CANCELLED'];

import type { ExecutionClass } from '@nudge/core';
import type { ClaimedJob, JobLease } from '@nudge/store';

/** Why the engine stopped an attempt before it settled. */
export type AbortReason = 'timeout' | 'lease-lost' | 'cancelled' | 'shutdown';

/** One attempt this instance is running. */
export interface Attempt {
  readonly job: ClaimedJob;
  readonly execution: ExecutionClass;
  /** When the attempt was handed to its thread, from `performance.now()`, in ms. */
  readonly startedAt: number;
  /** Set once the engine asked the attempt to stop; the first reason wins. */
  abortReason?: AbortReason;
}

/** The lease of an attempt. */
export function leaseOf(attempt: Attempt): JobLease {
  return { id: attempt.job.id, version: attempt.job.version };
}

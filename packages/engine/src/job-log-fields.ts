import type { ClaimedJob } from '@nudge/store';

/** The fields every log line about one job carries: `{ jobId, kind, queue, attempt, version }`. */
export interface JobLogFields {
  readonly jobId: number;
  readonly kind: string;
  readonly queue: string;
  /** The attempt's number, from 1. */
  readonly attempt: number;
  /** The row version the attempt holds (its lease). */
  readonly version: number;
}

/** The log fields of a claimed job's attempt, for pino's first argument. */
export function jobLogFields(job: ClaimedJob): JobLogFields {
  return { jobId: job.id, kind: job.kind, queue: job.queue, attempt: job.attempt, version: job.version };
}

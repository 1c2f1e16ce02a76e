import type { JobLogLevel } from '@nudge/core';

/** One line of a job's log as `GET /jobs/:id/logs` answers it. */
export interface JobLogLineView {
  /** Position in the job's log, from 1, across its attempts. */
  readonly seq: number;
  /** The attempt that wrote it, from 1. */
  readonly attempt: number;
  readonly level: JobLogLevel;
  readonly message: string;
  /** The fields given with the line; `null` without. */
  readonly fields: Readonly<Record<string, unknown>> | null;
  /** When it was stored (database clock), ISO-8601 UTC. */
  readonly at: string;
}

/** A page of a job's log (`client.logs`). */
export interface JobLogsView {
  readonly id: number;
  /** Lines after the `after` asked for, oldest first. */
  readonly lines: readonly JobLogLineView[];
  /** Lines of the job dropped over its caps. */
  readonly dropped: number;
  /** The `after` of the next page: the last seq returned, or the `after` given when no line came. */
  readonly cursor: number;
}

/** Which page of a job's log `client.logs` reads. */
export interface JobLogsQuery {
  /** Lines with a seq over this one (the previous page's `cursor`). @defaultValue 0 */
  readonly after?: number;
  /** Most lines, 1 to 1000. @defaultValue 100 */
  readonly limit?: number;
}

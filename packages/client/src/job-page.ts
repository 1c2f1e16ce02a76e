import type { JobStatus } from '@nudge/core';
import type { ListedJobView } from './job-view.js';

/** Filters and paging of `NudgeClient.list`. */
export interface ListJobsQuery {
  readonly status?: JobStatus;
  readonly kind?: string;
  readonly queue?: string;
  /** Jobs per page, 1 to 100. @defaultValue 50 (the server's) */
  readonly limit?: number;
  /** The `nextCursor` of the previous page (with the same filters and fields). */
  readonly cursor?: string;
  /**
   * The large fields to list with each job; without them a page holds summaries, and
   * `NudgeClient.get` reads one job whole. @defaultValue [] (neither)
   */
  readonly fields?: ReadonlyArray<'payload' | 'result'>;
}

/** One page of `GET /jobs`, newest first. */
export interface JobPage {
  readonly jobs: ListedJobView[];
  /**
   * Pass as `cursor` for the next page; `null` on the last page. A page may hold fewer than
   * `limit` jobs and still have one: the server ends a page before its answer passes 4 MiB.
   */
  readonly nextCursor: string | null;
}

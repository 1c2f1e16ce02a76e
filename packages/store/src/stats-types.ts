import type { JobStatus } from '@nudge/core';
import type { InstanceInfo } from './instance-types.js';
import type { NamePage } from './read-types.js';

// The input and result of Store.stats (see store.ts).

/** Number of jobs in each status, every status present (zero included). */
export type StatusCounts = Record<JobStatus, number>;

/** Input of {@link Store.stats}. */
export interface StatsInput {
  /** An instance seen within this many ms is live, and listed. */
  readonly instanceLiveWithinMs: number;
  /** The page of kinds in {@link StoreStats.byKind}; every kind when absent. */
  readonly kinds?: NamePage;
  /** The page of queues in {@link StoreStats.byQueue}; every queue when absent. */
  readonly queues?: NamePage;
  /** Overrides the database clock; tests only. */
  readonly now?: Date;
}

/** What {@link Store.stats} reports, all read by the database clock at `at`. */
export interface StoreStats {
  /** The database's now when the stats were read. */
  readonly at: Date;
  /** Jobs by status. */
  readonly byStatus: StatusCounts;
  /** Jobs by kind, then status; kinds sorted by name (the page of `kinds`, when given). */
  readonly byKind: Record<string, StatusCounts>;
  /** Jobs by queue, then status; queues sorted by name (the page of `queues`, when given). */
  readonly byQueue: Record<string, StatusCounts>;
  /**
   * How long the `PENDING` job due earliest has been due (`at` − its `run_at`), in ms; `null`
   * when no job is `PENDING`.
   */
  readonly oldestPendingAgeMs: number | null;
  /** Jobs that finished `SUCCEEDED` and `FAILED` within the hour before `at` (`CANCELLED` ones do not count). */
  readonly lastHour: { readonly succeeded: number; readonly failed: number };
  /** `failed / (succeeded + failed)` of {@link StoreStats.lastHour}, 0 to 1; `null` when both are 0. */
  readonly failureRateLastHour: number | null;
  /** Live instances, by id. */
  readonly instances: InstanceInfo[];
}

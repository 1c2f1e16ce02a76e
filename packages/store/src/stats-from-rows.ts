import { JOB_STATUSES } from '@nudge/core';
import type { InstanceInfo, StatusCounts, StoreStats } from './store.js';
import { toStatusCounts } from './count-by-status.js';

/** One group of the stats query: `SELECT kind, queue, status, count(*) … GROUP BY kind, queue, status`. */
export interface StatsGroupRow {
  readonly kind: string;
  readonly queue: string;
  readonly status: string;
  readonly count: number | string | bigint;
}

/** The scalar part of the stats, as both dialects read it. */
export interface StatsScalars {
  /** The database's now. */
  readonly at: Date;
  /** `run_at` of the earliest due `PENDING` job, or `null`. */
  readonly oldestPendingRunAt: Date | null;
  readonly succeededLastHour: number;
  readonly failedLastHour: number;
}

/** Assembles {@link StoreStats} from the grouped counts, the scalars and the live instances. */
export function statsFromRows(
  groups: readonly StatsGroupRow[],
  scalars: StatsScalars,
  instances: InstanceInfo[],
): StoreStats {
  const byStatus = toStatusCounts([]);
  const byKind = new Map<string, StatusCounts>();
  const byQueue = new Map<string, StatusCounts>();
  const known = JOB_STATUSES as readonly string[];
  for (const row of groups) {
    if (!known.includes(row.status)) continue;
    const status = row.status as keyof StatusCounts;
    const count = Number(row.count);
    byStatus[status] += count;
    for (const [map, key] of [
      [byKind, row.kind],
      [byQueue, row.queue],
    ] as const) {
      let counts = map.get(key);
      if (!counts) map.set(key, (counts = toStatusCounts([])));
      counts[status] += count;
    }
  }
  const sorted = (map: Map<string, StatusCounts>) =>
    Object.fromEntries([...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const { succeededLastHour: succeeded, failedLastHour: failed } = scalars;
  return {
    at: scalars.at,
    byStatus,
    byKind: sorted(byKind),
    byQueue: sorted(byQueue),
    oldestPendingAgeMs:
      scalars.oldestPendingRunAt === null
        ? null
        : Math.max(0, scalars.at.getTime() - scalars.oldestPendingRunAt.getTime()),
    lastHour: { succeeded, failed },
    failureRateLastHour: succeeded + failed === 0 ? null : failed / (succeeded + failed),
    instances,
  };
}

/** The window of {@link StoreStats.lastHour}, in ms. */
export const STATS_WINDOW_MS = 3_600_000;

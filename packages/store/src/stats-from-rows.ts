import { JOB_STATUSES } from '@nudge/core';
import type { InstanceInfo, StatusCounts, StoreStats } from './store.js';
import { toStatusCounts } from './count-by-status.js';

/** One group of a stats query: `SELECT <name>, status, count(*) … GROUP BY <name>, status`. */
export interface StatsGroupRow {
  /** The kind or the queue; absent in the counts by status alone. */
  readonly name?: string;
  readonly status: string;
  readonly count: number | string | bigint;
}

/** The grouped counts of the stats: by status, by kind and status, by queue and status. */
export interface StatsGroups {
  readonly byStatus: readonly StatsGroupRow[];
  readonly byKind: readonly StatsGroupRow[];
  readonly byQueue: readonly StatsGroupRow[];
}

/**
 * The statement of the counts by `column` (`kind` or `queue`) and status, for a page of names:
 * `after` and `limit` are the dialect's placeholders (NULL: from the first, and all, in
 * PostgreSQL; SQLite takes -1 for all). The names are picked first, so only theirs are counted,
 * in code point order (`collate`: PostgreSQL's ` COLLATE "C"`; SQLite's BINARY already is), the
 * order {@link compareCodePoints} sorts them in.
 */
export function namePageGroupsSql(
  column: 'kind' | 'queue',
  after: string,
  limit: string,
  collate = '',
): string {
  return `SELECT ${column} AS name, status, count(*) AS count FROM nudge_jobs
 WHERE ${column} IN (SELECT DISTINCT ${column}${collate} FROM nudge_jobs
                      WHERE ${after} IS NULL OR ${column}${collate} > ${after} ORDER BY 1 LIMIT ${limit})
 GROUP BY ${column}, status`;
}

/**
 * Orders two strings by their code points, as PostgreSQL's `C` collation and SQLite's `BINARY`
 * order them (UTF-8 bytes); `<` on strings compares UTF-16 units, which differs past U+FFFF.
 */
export function compareCodePoints(a: string, b: string): number {
  const left = a[Symbol.iterator]();
  const right = b[Symbol.iterator]();
  for (;;) {
    const x = left.next();
    const y = right.next();
    if (x.done || y.done) return x.done && y.done ? 0 : x.done ? -1 : 1;
    const diff = (x.value.codePointAt(0) ?? 0) - (y.value.codePointAt(0) ?? 0);
    if (diff !== 0) return diff;
  }
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
  groups: StatsGroups,
  scalars: StatsScalars,
  instances: InstanceInfo[],
): StoreStats {
  const known = JOB_STATUSES as readonly string[];
  const byName = (rows: readonly StatsGroupRow[]) => {
    const map = new Map<string, StatusCounts>();
    for (const row of rows) {
      if (!known.includes(row.status) || row.name === undefined) continue;
      let counts = map.get(row.name);
      if (!counts) map.set(row.name, (counts = toStatusCounts([])));
      counts[row.status as keyof StatusCounts] += Number(row.count);
    }
    return Object.fromEntries([...map].sort(([a], [b]) => compareCodePoints(a, b)));
  };
  const { succeededLastHour: succeeded, failedLastHour: failed } = scalars;
  return {
    at: scalars.at,
    byStatus: toStatusCounts(groups.byStatus),
    byKind: byName(groups.byKind),
    byQueue: byName(groups.byQueue),
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

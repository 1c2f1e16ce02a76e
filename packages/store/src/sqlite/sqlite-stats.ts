import type Database from 'better-sqlite3';
import type { StatsInput, StoreStats } from '../store.js';
import { namePageGroupsSql, STATS_WINDOW_MS, statsFromRows, type StatsGroupRow } from '../stats-from-rows.js';
import type { SqliteInstances } from './sqlite-instances.js';
import { toSqliteTime } from './sqlite-row.js';
import { SQLITE_NOW, sqliteNowMinus } from './sqlite-time.js';

/**
 * Prepares the operator counts; see {@link Store.stats}. One read transaction, so every number
 * describes the same snapshot. The last-hour counts scan the finished rows (no index on
 * `finished_at`): an operator's read, not a hot path.
 */
export function createSqliteStats(
  db: Database.Database,
  instances: SqliteInstances,
): (input: StatsInput) => StoreStats {
  const byStatus = db.prepare<[], StatsGroupRow>(
    'SELECT status, count(*) AS count FROM nudge_jobs GROUP BY status',
  );
  const byKind = db.prepare<{ after: string | null; limit: number }, StatsGroupRow>(
    namePageGroupsSql('kind', '@after', '@limit'),
  );
  const byQueue = db.prepare<{ after: string | null; limit: number }, StatsGroupRow>(
    namePageGroupsSql('queue', '@after', '@limit'),
  );
  const page = (statement: typeof byKind, names: StatsInput['kinds']) =>
    names?.limit === 0 ? [] : statement.all({ after: names?.after ?? null, limit: names?.limit ?? -1 });
  const scalars = db.prepare(`
SELECT ${SQLITE_NOW} AS at,
       (SELECT min(run_at) FROM nudge_jobs WHERE status = 'PENDING') AS oldest,
       count(*) FILTER (WHERE status = 'SUCCEEDED') AS succeeded,
       count(*) FILTER (WHERE status = 'FAILED') AS failed
  FROM nudge_jobs
 WHERE status IN ('SUCCEEDED', 'FAILED') AND finished_at >= ${sqliteNowMinus('@ms')}`);
  const read = db.transaction((input: StatsInput): StoreStats => {
    const now = toSqliteTime(input.now);
    const row = scalars.get({ now, ms: STATS_WINDOW_MS }) as {
      at: string;
      oldest: string | null;
      succeeded: number;
      failed: number;
    };
    return statsFromRows(
      { byStatus: byStatus.all(), byKind: page(byKind, input.kinds), byQueue: page(byQueue, input.queues) },
      {
        at: new Date(row.at),
        oldestPendingRunAt: row.oldest === null ? null : new Date(row.oldest),
        succeededLastHour: row.succeeded,
        failedLastHour: row.failed,
      },
      instances.list({
        liveWithinMs: input.instanceLiveWithinMs,
        liveOnly: true,
        ...(input.now && { now: input.now }),
      }),
    );
  });
  return (input) => read(input);
}

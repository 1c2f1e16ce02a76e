import type pg from 'pg';
import { pgTransaction } from './pg-transaction.js';
import type { StatsInput, StoreStats } from '../store.js';
import { namePageGroupsSql, STATS_WINDOW_MS, statsFromRows, type StatsGroupRow } from '../stats-from-rows.js';
import { pgListInstances } from './pg-instances.js';
import { pgNow } from './pg-row.js';

const BY_STATUS = 'SELECT status, count(*) AS count FROM nudge_jobs GROUP BY status';
// $1: the name to list after (NULL: from the first); $2: the most names (NULL: all).
const BY_KIND = namePageGroupsSql('kind', '$1::text', '$2::int', ' COLLATE "C"');
const BY_QUEUE = namePageGroupsSql('queue', '$1::text', '$2::int', ' COLLATE "C"');

// $1: now (NULL: the database clock); $2: the window, in ms. The last-hour counts scan the
// finished rows (no index on finished_at): an operator's read, not a hot path.
const SCALARS = `
SELECT ${pgNow('$1')} AS at,
       (SELECT min(run_at) FROM nudge_jobs WHERE status = 'PENDING') AS oldest,
       count(*) FILTER (WHERE status = 'SUCCEEDED') AS succeeded,
       count(*) FILTER (WHERE status = 'FAILED') AS failed
  FROM nudge_jobs
 WHERE status IN ('SUCCEEDED', 'FAILED') AND finished_at >= ${pgNow('$1')} - $2 * interval '1 millisecond'`;

/**
 * Operator counts; see {@link Store.stats}. Read in one `REPEATABLE READ` read-only transaction,
 * so every number describes the same snapshot.
 */
export async function pgStats(pool: pg.Pool, input: StatsInput): Promise<StoreStats> {
  const read = await pgTransaction(
    pool,
    async (client) => {
      const page = async (sql: string, names: StatsInput['kinds']) =>
        names?.limit === 0
          ? []
          : (await client.query<StatsGroupRow>(sql, [names?.after ?? null, names?.limit ?? null])).rows;
      const groups = {
        byStatus: (await client.query<StatsGroupRow>(BY_STATUS)).rows,
        byKind: await page(BY_KIND, input.kinds),
        byQueue: await page(BY_QUEUE, input.queues),
      };
      const scalars = await client.query<{
        at: Date;
        oldest: Date | null;
        succeeded: string;
        failed: string;
      }>(SCALARS, [input.now ?? null, STATS_WINDOW_MS]);
      const instances = await pgListInstances(client, {
        liveWithinMs: input.instanceLiveWithinMs,
        liveOnly: true,
        ...(input.now && { now: input.now }),
      });
      return { groups, scalars, instances };
    },
    'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
  );
  const { groups, scalars, instances } = read;
  const row = scalars.rows[0];
  if (!row) throw new Error('the stats query returned no row');
  return statsFromRows(
    groups,
    {
      at: row.at,
      oldestPendingRunAt: row.oldest,
      succeededLastHour: Number(row.succeeded),
      failedLastHour: Number(row.failed),
    },
    instances,
  );
}

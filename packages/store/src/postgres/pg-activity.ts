import type pg from 'pg';
import type { ActivityBucket, ActivityQuery } from '../read-types.js';
import { pgMs, pgNow } from './pg-row.js';

// Finished jobs of the window only, per bucket of finish time. The index on (status, kind,
// finished_at) has the kind between the two: the kinds that finished with each status are walked
// first (one probe each), then each (status, kind) reads its range of the window (`OFFSET 0` keeps
// the planner from turning that into one scan of every finished row). Read at once, the
// window cost a scan of every finished row (106 ms at 1,000,000 rows). The latency is enqueue →
// start of jobs that finished on their first attempt (a retried job's start includes its
// backoff, which is not waiting for a slot).
/** The activity statement: `$1` now (NULL: the database clock), `$2` the window and `$3` the bucket, in ms. */
export const PG_ACTIVITY = `
WITH RECURSIVE w AS (SELECT ${pgNow('$1')} - ${pgMs('$2')} AS since),
kinds AS (
  SELECT s.status,
         (SELECT min(f.kind) FROM nudge_jobs AS f
           WHERE f.status = s.status AND f.finished_at IS NOT NULL) AS kind
    FROM (VALUES ('SUCCEEDED'), ('FAILED')) AS s(status)
  UNION ALL
  SELECT k.status,
         (SELECT min(f.kind) FROM nudge_jobs AS f
           WHERE f.status = k.status AND f.finished_at IS NOT NULL AND f.kind > k.kind)
    FROM kinds AS k
   WHERE k.kind IS NOT NULL
)
SELECT floor(extract(epoch FROM j.finished_at - w.since) * 1000 / $3)::int AS bucket,
       count(*) FILTER (WHERE j.status = 'SUCCEEDED')::int AS succeeded,
       count(*) FILTER (WHERE j.status = 'FAILED')::int AS failed,
       avg(extract(epoch FROM j.started_at - j.created_at) * 1000)
         FILTER (WHERE j.attempts = 1 AND j.started_at IS NOT NULL)::float8 AS latency_avg_ms,
       max(extract(epoch FROM j.started_at - j.created_at) * 1000)
         FILTER (WHERE j.attempts = 1 AND j.started_at IS NOT NULL)::float8 AS latency_max_ms,
       w.since
  FROM w, kinds AS k
 CROSS JOIN LATERAL (
   SELECT f.status, f.finished_at, f.started_at, f.created_at, f.attempts FROM nudge_jobs AS f
    WHERE f.status = k.status AND f.kind = k.kind AND f.finished_at IS NOT NULL
      AND f.finished_at >= w.since
   OFFSET 0
 ) AS j
 WHERE k.kind IS NOT NULL
 GROUP BY 1, w.since
 ORDER BY 1`;

interface ActivityRow {
  bucket: number;
  succeeded: number;
  failed: number;
  latency_avg_ms: number | null;
  latency_max_ms: number | null;
  since: Date;
}

/** Finished jobs per bucket of the window; see {@link Store.activity}. */
export async function pgActivity(pool: pg.Pool, query: ActivityQuery): Promise<ActivityBucket[]> {
  const { rows } = await pool.query<ActivityRow>(PG_ACTIVITY, [
    query.now ?? null,
    query.windowMs,
    query.bucketMs,
  ]);
  return rows.map((row) => ({
    start: new Date(row.since.getTime() + row.bucket * query.bucketMs),
    succeeded: row.succeeded,
    failed: row.failed,
    latencyAvgMs: row.latency_avg_ms,
    latencyMaxMs: row.latency_max_ms,
  }));
}

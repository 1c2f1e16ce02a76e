import type pg from 'pg';
import type { ActivityBucket, ActivityQuery } from '../read-types.js';
import { pgMs, pgNow } from './pg-row.js';

// Finished jobs of the window only, per bucket of finish time: a range of finished_at per status.
// The latency is enqueue → start of jobs that finished on their first attempt (a retried job's
// start includes its backoff, which is not waiting for a slot).
const ACTIVITY = `
WITH w AS (SELECT ${pgNow('$1')} - ${pgMs('$2')} AS since)
SELECT floor(extract(epoch FROM j.finished_at - w.since) * 1000 / $3)::int AS bucket,
       count(*) FILTER (WHERE j.status = 'SUCCEEDED')::int AS succeeded,
       count(*) FILTER (WHERE j.status = 'FAILED')::int AS failed,
       avg(extract(epoch FROM j.started_at - j.created_at) * 1000)
         FILTER (WHERE j.attempts = 1 AND j.started_at IS NOT NULL)::float8 AS latency_avg_ms,
       max(extract(epoch FROM j.started_at - j.created_at) * 1000)
         FILTER (WHERE j.attempts = 1 AND j.started_at IS NOT NULL)::float8 AS latency_max_ms,
       w.since
  FROM nudge_jobs AS j, w
 WHERE j.status IN ('SUCCEEDED', 'FAILED') AND j.finished_at >= w.since
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
  const { rows } = await pool.query<ActivityRow>(ACTIVITY, [
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

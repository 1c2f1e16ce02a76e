import type Database from 'better-sqlite3';
import type { ActivityBucket, ActivityQuery } from '../read-types.js';
import { toSqliteTime } from './sqlite-row.js';
import { sqliteNowMinus } from './sqlite-time.js';

const MS_PER_DAY = 86_400_000;

// Finished jobs of the window only, per bucket of finish time (see pg-activity.ts).
const ACTIVITY = `
WITH w AS (SELECT ${sqliteNowMinus('@windowMs')} AS since)
SELECT CAST((julianday(j.finished_at) - julianday(w.since)) * ${MS_PER_DAY} / @bucketMs AS INTEGER) AS bucket,
       sum(j.status = 'SUCCEEDED') AS succeeded,
       sum(j.status = 'FAILED') AS failed,
       avg(CASE WHEN j.attempts = 1 AND j.started_at IS NOT NULL
                THEN (julianday(j.started_at) - julianday(j.created_at)) * ${MS_PER_DAY} END) AS latency_avg_ms,
       max(CASE WHEN j.attempts = 1 AND j.started_at IS NOT NULL
                THEN (julianday(j.started_at) - julianday(j.created_at)) * ${MS_PER_DAY} END) AS latency_max_ms,
       w.since AS since
  FROM nudge_jobs AS j, w
 WHERE j.status IN ('SUCCEEDED', 'FAILED') AND j.finished_at >= w.since
 GROUP BY 1
 ORDER BY 1`;

interface ActivityRow {
  bucket: number;
  succeeded: number;
  failed: number;
  latency_avg_ms: number | null;
  latency_max_ms: number | null;
  since: string;
}

/** Prepares the activity read; see {@link Store.activity}. */
export function createSqliteActivity(db: Database.Database): (query: ActivityQuery) => ActivityBucket[] {
  const statement = db.prepare<Record<string, unknown>, ActivityRow>(ACTIVITY);
  return (query) =>
    statement
      .all({ now: toSqliteTime(query.now), windowMs: query.windowMs, bucketMs: query.bucketMs })
      .map((row) => ({
        start: new Date(new Date(row.since).getTime() + row.bucket * query.bucketMs),
        succeeded: row.succeeded,
        failed: row.failed,
        // julianday has about 0.1 ms of resolution at today's dates: round to it.
        latencyAvgMs: row.latency_avg_ms === null ? null : Math.round(row.latency_avg_ms * 10) / 10,
        latencyMaxMs: row.latency_max_ms === null ? null : Math.round(row.latency_max_ms * 10) / 10,
      }));
}

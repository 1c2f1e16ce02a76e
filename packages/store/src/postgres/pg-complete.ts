import type pg from 'pg';
import type { CompleteInput, JobLease } from '../store.js';
import { pgNow } from './pg-row.js';

// Invariant: only the current attempt (same id and version, still RUNNING) records a success.
const COMPLETE = `
UPDATE nudge_jobs AS j
   SET status = 'SUCCEEDED', result = t.result, finished_at = ${pgNow('$4')}, lease_expires_at = NULL
  FROM unnest($1::bigint[], $2::integer[], $3::jsonb[]) AS t(id, version, result)
 WHERE j.id = t.id AND j.version = t.version AND j.status = 'RUNNING'
RETURNING j.id, j.version`;

/** The PostgreSQL completion, one statement for the batch; see {@link Store.complete}. */
export async function pgComplete(
  pool: pg.Pool,
  items: readonly CompleteInput[],
  now?: Date,
): Promise<JobLease[]> {
  if (items.length === 0) return [];
  const { rows } = await pool.query<JobLease>(COMPLETE, [
    items.map((i) => i.id),
    items.map((i) => i.version),
    items.map((i) => (i.result === undefined ? null : JSON.stringify(i.result))),
    now ?? null,
  ]);
  return rows;
}

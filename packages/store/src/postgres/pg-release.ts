import type pg from 'pg';
import type { JobLease } from '../store.js';
import { pgNow } from './pg-row.js';

// Invariant: only the current attempt gives its row back; the new version fences the old owner
// out, and the interrupted attempt is not counted against max_attempts.
const RELEASE = `
UPDATE nudge_jobs AS j
   SET status = 'PENDING', version = j.version + 1, attempts = greatest(j.attempts - 1, 0),
       run_at = ${pgNow('$3')}, lease_expires_at = NULL
  FROM unnest($1::bigint[], $2::integer[]) AS t(id, version)
 WHERE j.id = t.id AND j.version = t.version AND j.status = 'RUNNING'
RETURNING j.id, t.version`;

/** The PostgreSQL release; see {@link Store.release}. */
export async function pgRelease(pool: pg.Pool, leases: readonly JobLease[], now?: Date): Promise<JobLease[]> {
  if (leases.length === 0) return [];
  const { rows } = await pool.query<JobLease>(RELEASE, [
    leases.map((l) => l.id),
    leases.map((l) => l.version),
    now ?? null,
  ]);
  return rows;
}

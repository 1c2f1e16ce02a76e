import type pg from 'pg';
import type { JobLease } from '../store.js';
import { pgIdArray, pgLeaseMap, pgLeaseMatches } from './pg-lease-map.js';
import { pgNow } from './pg-row.js';

// Invariant: only the current attempt gives its row back; the new version fences the old owner
// out, and the interrupted attempt is not counted against max_attempts.
const RELEASE = `
UPDATE nudge_jobs AS j
   SET status = 'PENDING', version = j.version + 1, attempts = greatest(j.attempts - 1, 0),
       run_at = ${pgNow('$3')}, lease_expires_at = NULL
 WHERE j.id = ANY($1::bigint[]) AND j.status = 'RUNNING' AND ${pgLeaseMatches('$2')}
RETURNING j.id, j.version - 1 AS version`;

/** The PostgreSQL release; see {@link Store.release}. */
export async function pgRelease(pool: pg.Pool, leases: readonly JobLease[], now?: Date): Promise<JobLease[]> {
  if (leases.length === 0) return [];
  const { rows } = await pool.query<JobLease>({
    name: 'nudge_release',
    text: RELEASE,
    values: [pgIdArray(leases), pgLeaseMap(leases), now ?? null],
  });
  return rows;
}

import type pg from 'pg';
import type { Job } from '@nudge/core';
import type { ClaimInput } from '../store.js';
import { pgMs, pgNow, pgRowToJob, type PgJobRow } from './pg-row.js';

// Invariant: the CTE locks at most $limit due PENDING rows, skipping rows other claimers hold,
// and the UPDATE flips exactly those rows; each claim bumps version and attempts. The LIMIT must
// sit in a CTE: a bare `id IN (SELECT … LIMIT n FOR UPDATE SKIP LOCKED)` may be re-evaluated
// and lock more than n rows.
const CLAIM = `
WITH picked AS (
  SELECT id FROM nudge_jobs
   WHERE status = 'PENDING' AND run_at <= ${pgNow('$1')}
   ORDER BY priority, run_at, id
   LIMIT $2
   FOR UPDATE SKIP LOCKED
)
UPDATE nudge_jobs AS j
   SET status = 'RUNNING',
       version = j.version + 1,
       attempts = j.attempts + 1,
       claimed_by = $3,
       started_at = ${pgNow('$1')},
       lease_expires_at = ${pgNow('$1')} + ${pgMs('$4')}
  FROM picked
 WHERE j.id = picked.id
RETURNING j.*`;

/** Sort key of claim order: `(priority, run_at, id)`. */
const byClaimOrder = (a: Job, b: Job): number =>
  a.priority - b.priority || a.runAt.getTime() - b.runAt.getTime() || a.id - b.id;

/** The PostgreSQL claim; see {@link Store.claim}. */
export async function pgClaim(pool: pg.Pool, input: ClaimInput): Promise<Job[]> {
  const { rows } = await pool.query<PgJobRow>(CLAIM, [
    input.now ?? null,
    input.limit,
    input.workerId,
    input.leaseMs,
  ]);
  return rows.map(pgRowToJob).sort(byClaimOrder);
}

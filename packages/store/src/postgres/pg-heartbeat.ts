import type pg from 'pg';
import type { JobLease } from '../store.js';
import { pgIdArray, pgLeaseMap, pgLeaseMatches } from './pg-lease-map.js';
import { pgMs, pgNow } from './pg-row.js';

// Invariant: only the current attempt (same id and version, still RUNNING) extends its lease.
const HEARTBEAT = `
UPDATE nudge_jobs AS j SET lease_expires_at = ${pgNow('$3')} + ${pgMs('$4')}
 WHERE j.id = ANY($1::bigint[]) AND j.status = 'RUNNING' AND ${pgLeaseMatches('$2')}
RETURNING j.id, j.version`;

/** The PostgreSQL heartbeat, one statement for every lease; see {@link Store.heartbeat}. */
export async function pgHeartbeat(
  pool: pg.Pool,
  leases: readonly JobLease[],
  leaseMs: number,
  now?: Date,
): Promise<JobLease[]> {
  if (leases.length === 0) return [];
  const { rows } = await pool.query<JobLease>({
    name: 'nudge_heartbeat',
    text: HEARTBEAT,
    values: [pgIdArray(leases), pgLeaseMap(leases), now ?? null, leaseMs],
  });
  return rows;
}

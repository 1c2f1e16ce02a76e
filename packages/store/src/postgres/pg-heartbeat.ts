import type pg from 'pg';
import type { JobLease } from '../store.js';
import { pgMs, pgNow } from './pg-row.js';

// Invariant: only the current attempt (same id and version, still RUNNING) extends its lease.
const HEARTBEAT = `
UPDATE nudge_jobs AS j SET lease_expires_at = ${pgNow('$3')} + ${pgMs('$4')}
  FROM unnest($1::bigint[], $2::integer[]) AS t(id, version)
 WHERE j.id = t.id AND j.version = t.version AND j.status = 'RUNNING'
RETURNING j.id, j.version`;

/** The PostgreSQL heartbeat, one statement for every lease; see {@link Store.heartbeat}. */
export async function pgHeartbeat(
  pool: pg.Pool,
  leases: readonly JobLease[],
  leaseMs: number,
  now?: Date,
): Promise<JobLease[]> {
  if (leases.length === 0) return [];
  const { rows } = await pool.query<JobLease>(HEARTBEAT, [
    leases.map((l) => l.id),
    leases.map((l) => l.version),
    now ?? null,
    leaseMs,
  ]);
  return rows;
}

import type Database from 'better-sqlite3';
import type { JobLease } from '../store.js';
import { toSqliteTime } from './sqlite-row.js';
import { sqliteNowPlus } from './sqlite-time.js';

// Invariant: only the current attempt (same id and version, still RUNNING) extends its lease.
const HEARTBEAT = `
UPDATE nudge_jobs SET lease_expires_at = ${sqliteNowPlus('@leaseMs')}
 WHERE id = @id AND version = @version AND status = 'RUNNING'`;

/** Prepares the SQLite heartbeat; see {@link Store.heartbeat}. */
export function createSqliteHeartbeat(
  db: Database.Database,
): (leases: readonly JobLease[], leaseMs: number, now?: Date) => JobLease[] {
  const statement = db.prepare(HEARTBEAT);
  const beat = db.transaction((leases: readonly JobLease[], leaseMs: number, now: string | null) =>
    leases.filter(
      (lease) => statement.run({ id: lease.id, version: lease.version, leaseMs, now }).changes === 1,
    ),
  );
  return (leases, leaseMs, now) =>
    leases.length === 0 ? [] : beat.immediate(leases, leaseMs, toSqliteTime(now));
}

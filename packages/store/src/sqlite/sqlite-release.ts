import type Database from 'better-sqlite3';
import type { JobLease } from '../store.js';
import { toSqliteTime } from './sqlite-row.js';
import { SQLITE_NOW } from './sqlite-time.js';

// Invariant: only the current attempt gives its row back; the new version fences the old owner
// out, and the interrupted attempt is not counted against max_attempts.
const RELEASE = `
UPDATE nudge_jobs
   SET status = 'PENDING', version = version + 1, attempts = max(attempts - 1, 0),
       run_at = ${SQLITE_NOW}, lease_expires_at = NULL
 WHERE id = @id AND version = @version AND status = 'RUNNING'`;

/** Prepares the SQLite release; see {@link Store.release}. */
export function createSqliteRelease(
  db: Database.Database,
): (leases: readonly JobLease[], now?: Date) => JobLease[] {
  const statement = db.prepare(RELEASE);
  const release = db.transaction((leases: readonly JobLease[], now: string | null) =>
    leases.filter((lease) => statement.run({ id: lease.id, version: lease.version, now }).changes === 1),
  );
  return (leases, now) => (leases.length === 0 ? [] : release.immediate(leases, toSqliteTime(now)));
}

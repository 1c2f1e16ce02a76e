import type Database from 'better-sqlite3';
import type { Job } from '@nudge/core';
import type { ClaimInput } from '../store.js';
import { sqliteRowToJob, toSqliteTime, type SqliteJobRow } from './sqlite-row.js';
import { SQLITE_NOW, sqliteNowPlus } from './sqlite-time.js';

// Invariant: one statement picks and flips the rows, under BEGIN IMMEDIATE, so no two claimers
// (threads or processes) can both see a row as PENDING; each claim bumps version and attempts.
const CLAIM = `
UPDATE nudge_jobs
   SET status = 'RUNNING',
       version = version + 1,
       attempts = attempts + 1,
       claimed_by = @workerId,
       started_at = ${SQLITE_NOW},
       lease_expires_at = ${sqliteNowPlus('@leaseMs')}
 WHERE id IN (SELECT id FROM nudge_jobs
               WHERE status = 'PENDING' AND run_at <= ${SQLITE_NOW}
               ORDER BY priority, run_at, id
               LIMIT @limit)
RETURNING *`;

/** Sort key of claim order: `(priority, run_at, id)`. */
export function byClaimOrder(a: Job, b: Job): number {
  return a.priority - b.priority || a.runAt.getTime() - b.runAt.getTime() || a.id - b.id;
}

/** Prepares the SQLite claim; see {@link Store.claim}. */
export function createSqliteClaim(db: Database.Database): (input: ClaimInput) => Job[] {
  const statement = db.prepare<Record<string, unknown>, SqliteJobRow>(CLAIM);
  const claim = db.transaction((input: ClaimInput) =>
    statement.all({
      workerId: input.workerId,
      leaseMs: input.leaseMs,
      limit: input.limit,
      now: toSqliteTime(input.now),
    }),
  );
  // RETURNING gives rows in no particular order; dispatch in claim order.
  return (input) => claim.immediate(input).map(sqliteRowToJob).sort(byClaimOrder);
}

import type Database from 'better-sqlite3';
import type { PromoteInput, PromoteResult } from '../store.js';
import { toSqliteTime } from './sqlite-row.js';
import { SQLITE_NOW } from './sqlite-time.js';

// Invariant: only SCHEDULED rows whose run_at has passed (database clock) become PENDING; run_at
// is kept, so a promoted job takes its due place in claim order.
const PROMOTE = `
UPDATE nudge_jobs SET status = 'PENDING'
 WHERE id IN (SELECT id FROM nudge_jobs
               WHERE status = 'SCHEDULED' AND run_at <= ${SQLITE_NOW}
               ORDER BY run_at
               LIMIT @limit)`;

// Read after the promotion, so `runnable` counts the rows just promoted too.
const NEXT_DUE = `
SELECT (SELECT min(run_at) FROM nudge_jobs
         WHERE status = 'SCHEDULED' AND run_at > ${SQLITE_NOW}) AS next,
       EXISTS (SELECT 1 FROM nudge_jobs WHERE status = 'PENDING' AND run_at <= ${SQLITE_NOW}) AS runnable,
       (SELECT min(lease_expires_at) FROM nudge_jobs
         WHERE lease_expires_at IS NOT NULL AND status = 'RUNNING') AS next_expiry,
       ${SQLITE_NOW} AS now`;

interface NextDueRow {
  next: string | null;
  runnable: number;
  next_expiry: string | null;
  now: string;
}

/** Prepares the SQLite promotion of due scheduled jobs; see {@link Store.promoteScheduled}. */
export function createSqlitePromote(db: Database.Database): (input?: PromoteInput) => PromoteResult {
  const promote = db.prepare<Record<string, unknown>>(PROMOTE);
  const nextDue = db.prepare<Record<string, unknown>, NextDueRow>(NEXT_DUE);
  const run = db.transaction((input: PromoteInput): PromoteResult => {
    const now = toSqliteTime(input.now);
    const { changes } = promote.run({ limit: input.limit ?? 1000, now });
    const row = nextDue.get({ now });
    const nowMs = row ? new Date(row.now).getTime() : 0;
    const nextDueInMs = row?.next == null ? null : Math.max(0, new Date(row.next).getTime() - nowMs);
    const nextLeaseExpiryInMs = row?.next_expiry == null ? null : new Date(row.next_expiry).getTime() - nowMs;
    return { promoted: changes, nextDueInMs, runnable: row?.runnable === 1, nextLeaseExpiryInMs };
  });
  return (input = {}) => run.immediate(input);
}

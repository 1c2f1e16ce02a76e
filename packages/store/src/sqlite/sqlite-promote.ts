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

const NEXT_DUE = `
SELECT min(run_at) AS next, ${SQLITE_NOW} AS now
  FROM nudge_jobs
 WHERE status = 'SCHEDULED' AND run_at > ${SQLITE_NOW}`;

/** Prepares the SQLite promotion of due scheduled jobs; see {@link Store.promoteScheduled}. */
export function createSqlitePromote(db: Database.Database): (input?: PromoteInput) => PromoteResult {
  const promote = db.prepare<Record<string, unknown>>(PROMOTE);
  const nextDue = db.prepare<Record<string, unknown>, { next: string | null; now: string }>(NEXT_DUE);
  const run = db.transaction((input: PromoteInput): PromoteResult => {
    const now = toSqliteTime(input.now);
    const { changes } = promote.run({ limit: input.limit ?? 1000, now });
    const row = nextDue.get({ now });
    const nextDueInMs =
      row?.next == null ? null : Math.max(0, new Date(row.next).getTime() - new Date(row.now).getTime());
    return { promoted: changes, nextDueInMs };
  });
  return (input = {}) => run.immediate(input);
}

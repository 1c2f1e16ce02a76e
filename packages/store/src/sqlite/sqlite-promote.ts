import type Database from 'better-sqlite3';
import type { PromoteInput, PromoteResult } from '../store.js';
import { toSqliteTime } from './sqlite-row.js';
import { SQLITE_NOW } from './sqlite-time.js';
import {
  isRowWriteError,
  ISOLATED_RETRY_DELAY_MS,
  type IsolatedWrite,
  type IsolatedWrites,
} from '../isolated-writes.js';
import { sqliteNoteIsolated, sqliteWriteIsolating } from './sqlite-isolating.js';

// Invariant: only SCHEDULED rows whose run_at has passed (database clock) become PENDING; run_at
// is kept, so a promoted job takes its due place in claim order.
const PROMOTE = `
UPDATE nudge_jobs SET status = 'PENDING'
 WHERE id IN (SELECT id FROM nudge_jobs
               WHERE status = 'SCHEDULED' AND run_at <= ${SQLITE_NOW}
               ORDER BY run_at
               LIMIT @limit)`;

// The promotion one row at a time, after the database refused the page: the due rows, then each
// part of them by id (still SCHEDULED).
const DUE = `
SELECT id FROM nudge_jobs
 WHERE status = 'SCHEDULED' AND run_at <= ${SQLITE_NOW}
 ORDER BY run_at
 LIMIT @limit`;
const PROMOTE_IDS = `
UPDATE nudge_jobs SET status = 'PENDING'
 WHERE id IN (SELECT value FROM json_each(@ids)) AND status = 'SCHEDULED'`;

// A signal wait whose deadline passed ends here, exactly once: SQLite runs one writer at a time,
// so a signal either released the row before (it no longer matches) or comes after and finds it
// PENDING. The wait's step row is marked TIMED_OUT first, while the row still names the signal,
// so every later attempt's wait returns null, whatever signal comes after.
const DEADLINES = `
SELECT id, wait_signal AS name FROM nudge_jobs
 WHERE status = 'WAITING' AND wait_signal IS NOT NULL AND run_at <= ${SQLITE_NOW}
 ORDER BY run_at
 LIMIT @limit`;
const MARK_TIMED_OUT = `
UPDATE nudge_job_steps SET status = 'TIMED_OUT', ended_at = ${SQLITE_NOW}
 WHERE job_id = @id AND name = @name AND status = 'WAITING'`;
const END_WAIT = `
UPDATE nudge_jobs SET status = 'PENDING', wait_signal = NULL
 WHERE id = @id AND status = 'WAITING' AND wait_signal = @name`;

// Read after the promotion, so `runnable` counts the rows just promoted too.
const NEXT_DUE = `
SELECT (SELECT min(at) FROM (
          SELECT min(run_at) AS at FROM nudge_jobs
           WHERE status = 'SCHEDULED' AND run_at > ${SQLITE_NOW}
          UNION ALL
          SELECT min(run_at) FROM nudge_jobs
           WHERE status = 'WAITING' AND wait_signal IS NOT NULL AND run_at > ${SQLITE_NOW}
             AND run_at < '9999-12-31T23:59:59.999Z')) AS next,
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

/**
 * Prepares the SQLite promotion of due scheduled jobs; see {@link Store.promoteScheduled}. A page
 * the database refuses is promoted again by parts, isolating the rows it refuses (reported to
 * `isolated`, their `run_at` moved `ISOLATED_RETRY_DELAY_MS` later).
 */
export function createSqlitePromote(
  db: Database.Database,
  isolated: IsolatedWrites,
): (input?: PromoteInput) => PromoteResult {
  const promote = db.prepare<Record<string, unknown>>(PROMOTE);
  const due = db.prepare<Record<string, unknown>, { id: number }>(DUE);
  const promoteIds = db.prepare<Record<string, unknown>>(PROMOTE_IDS);
  const nextDue = db.prepare<Record<string, unknown>, NextDueRow>(NEXT_DUE);
  const deadlines = db.prepare<Record<string, unknown>, { id: number; name: string }>(DEADLINES);
  const markTimedOut = db.prepare<Record<string, unknown>>(MARK_TIMED_OUT);
  const endWait = db.prepare<Record<string, unknown>>(END_WAIT);
  const timeOut = (limit: number, now: string | null): number => {
    let ended = 0;
    for (const { id, name } of deadlines.all({ limit, now })) {
      markTimedOut.run({ id, name, now });
      ended += endWait.run({ id, name }).changes;
    }
    return ended;
  };
  const page = db.transaction((limit: number, now: string | null) => promote.run({ limit, now }).changes);
  /** The page by parts: the rows promoted, and those isolated. */
  const byParts = (limit: number, now: string | null): { promoted: number; refused: IsolatedWrite[] } => {
    const rows = due.all({ limit, now });
    const written = sqliteWriteIsolating(db, 'promote', rows, (part) => [
      promoteIds.run({ ids: JSON.stringify(part.map((r) => r.id)) }).changes,
    ]);
    const push = { column: 'run_at' as const, delayMs: () => ISOLATED_RETRY_DELAY_MS };
    sqliteNoteIsolated(db, written.isolated, { push, now });
    return { promoted: written.results.reduce((a, b) => a + b, 0), refused: written.isolated };
  };
  const run = db.transaction((input: PromoteInput): PromoteResult & { refused: IsolatedWrite[] } => {
    const now = toSqliteTime(input.now);
    const limit = input.limit ?? 1000;
    let promoted: number;
    let refused: IsolatedWrite[] = [];
    try {
      promoted = page(limit, now);
    } catch (error) {
      if (!isRowWriteError(error)) throw error;
      ({ promoted, refused } = byParts(limit, now));
    }
    const timedOut = timeOut(limit, now);
    const row = nextDue.get({ now });
    const nowMs = row ? new Date(row.now).getTime() : 0;
    const nextDueInMs = row?.next == null ? null : Math.max(0, new Date(row.next).getTime() - nowMs);
    const nextLeaseExpiryInMs = row?.next_expiry == null ? null : new Date(row.next_expiry).getTime() - nowMs;
    const runnable = row?.runnable === 1;
    return {
      promoted,
      isolated: refused.length,
      ...(timedOut > 0 ? { timedOut } : {}),
      nextDueInMs,
      runnable,
      nextLeaseExpiryInMs,
      refused,
    };
  });
  return (input = {}) => {
    const { refused, ...result } = run.immediate(input);
    isolated.report(refused);
    return result;
  };
}

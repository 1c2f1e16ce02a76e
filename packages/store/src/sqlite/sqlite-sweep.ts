import type Database from 'better-sqlite3';
import type { RecoveredJob, SweepInput, SweepResult } from '../store.js';
import { toSqliteTime } from './sqlite-row.js';
import { SQLITE_NOW, sqliteNowPlus } from './sqlite-time.js';
import { sqliteAppendAttemptError } from './sqlite-attempt-errors.js';
import { ISOLATED_RETRY_DELAY_MS, type IsolatedWrite, type IsolatedWrites } from '../isolated-writes.js';
import { sqliteNoteIsolated, sqliteWriteIsolating } from './sqlite-isolating.js';

const EXPIRED = `
SELECT id, version, kind, attempts FROM nudge_jobs
 WHERE status = 'RUNNING' AND lease_expires_at < ${SQLITE_NOW}
 ORDER BY lease_expires_at
 LIMIT @limit`;

// Invariant: a row is recovered only if it is still the same expired attempt when written
// (same version, still RUNNING, lease still past); a job completed or heartbeated meanwhile
// is left alone. The version bump fences out the worker that lost the lease. The expiry is
// recorded as the attempt's error, in last_error and appended to errors.
const LEASE_ERROR = `'lease expired at ' || lease_expires_at || ': the instance ' || coalesce(claimed_by, '?')
                    || ' stopped heartbeating (crash, kill or stall)'`;
const RECOVER = `
UPDATE nudge_jobs
   SET status = CASE WHEN attempts >= max_attempts THEN 'FAILED'
                     WHEN @retryDelayMs > 0 THEN 'SCHEDULED' ELSE 'PENDING' END,
       run_at = CASE WHEN attempts >= max_attempts THEN run_at ELSE ${sqliteNowPlus('@retryDelayMs')} END,
       finished_at = CASE WHEN attempts >= max_attempts THEN ${SQLITE_NOW} END,
       version = version + 1,
       last_error = ${LEASE_ERROR},
       errors = ${sqliteAppendAttemptError('attempts', SQLITE_NOW, LEASE_ERROR, 'claimed_by')},
       lease_expires_at = NULL
 WHERE id = @id AND version = @version AND status = 'RUNNING' AND lease_expires_at < ${SQLITE_NOW}
RETURNING status, kind, queue`;

const NEXT_EXPIRY = `
SELECT min(lease_expires_at) AS next_expiry, ${SQLITE_NOW} AS now
  FROM nudge_jobs
 WHERE lease_expires_at IS NOT NULL AND status = 'RUNNING'`;

interface ExpiredRow {
  id: number;
  version: number;
  kind: string;
  attempts: number;
}

/**
 * Prepares the SQLite lease-expiry sweep; see {@link Store.sweepExpired}. The recovery runs in
 * savepoints, so a row the database refuses is isolated (reported to `isolated`, its lease pushed
 * back by its retry delay, at least `ISOLATED_RETRY_DELAY_MS`) and the rest of the page recovered.
 */
export function createSqliteSweep(
  db: Database.Database,
  isolated: IsolatedWrites,
): (input: SweepInput) => SweepResult {
  const expired = db.prepare<Record<string, unknown>, ExpiredRow>(EXPIRED);
  const recover = db.prepare<Record<string, unknown>, { status: string; kind: string; queue: string }>(
    RECOVER,
  );
  const nextExpiry = db.prepare<Record<string, unknown>, { next_expiry: string | null; now: string }>(
    NEXT_EXPIRY,
  );
  const sweep = db.transaction((input: SweepInput): SweepResult & { toReport: IsolatedWrite[] } => {
    const now = toSqliteTime(input.now);
    let requeued = 0;
    let failed = 0;
    const recovered: RecoveredJob[] = [];
    const limit = input.limit ?? 1000;
    const rows = expired.all({ limit, now });
    const delays = new Map(
      rows.map((r) => [r.id, input.retryDelayMs({ kind: r.kind, attempts: r.attempts })] as const),
    );
    const written = sqliteWriteIsolating(db, 'sweep', rows, (part) =>
      part.flatMap((row) => {
        const done = recover.get({ id: row.id, version: row.version, retryDelayMs: delays.get(row.id), now });
        return done ? [done] : [];
      }),
    );
    for (const row of written.results) {
      if (row.status === 'FAILED') failed += 1;
      else requeued += 1;
      recovered.push({ kind: row.kind, queue: row.queue, failed: row.status === 'FAILED' });
    }
    const push = {
      column: 'lease_expires_at' as const,
      delayMs: (id: number) => Math.max(ISOLATED_RETRY_DELAY_MS, delays.get(id) ?? 0),
    };
    sqliteNoteIsolated(db, written.isolated, { push, now });
    // A full page leaves expired leases for the next call (as on PostgreSQL, not read then).
    let nextLeaseExpiryInMs: number | null = 0;
    if (rows.length < limit) {
      const next = nextExpiry.get({ now });
      nextLeaseExpiryInMs =
        next?.next_expiry == null
          ? null
          : new Date(next.next_expiry).getTime() - new Date(next.now).getTime();
    }
    const refused = written.isolated.length;
    return {
      requeued,
      failed,
      isolated: refused,
      recovered,
      nextLeaseExpiryInMs,
      toReport: written.isolated,
    };
  });
  return (input) => {
    const { toReport, ...result } = sweep.immediate(input);
    isolated.report(toReport);
    return result;
  };
}

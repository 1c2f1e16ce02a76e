import type Database from 'better-sqlite3';
import type { RecoveredJob, SweepInput, SweepResult } from '../store.js';
import { toSqliteTime } from './sqlite-row.js';
import { SQLITE_NOW, sqliteNowPlus } from './sqlite-time.js';
import { sqliteAppendAttemptError } from './sqlite-attempt-errors.js';

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

/** Prepares the SQLite lease-expiry sweep; see {@link Store.sweepExpired}. */
export function createSqliteSweep(db: Database.Database): (input: SweepInput) => SweepResult {
  const expired = db.prepare<Record<string, unknown>, ExpiredRow>(EXPIRED);
  const recover = db.prepare<Record<string, unknown>, { status: string; kind: string; queue: string }>(
    RECOVER,
  );
  const nextExpiry = db.prepare<Record<string, unknown>, { next_expiry: string | null; now: string }>(
    NEXT_EXPIRY,
  );
  const sweep = db.transaction((input: SweepInput): SweepResult => {
    const now = toSqliteTime(input.now);
    let requeued = 0;
    let failed = 0;
    const recovered: RecoveredJob[] = [];
    const limit = input.limit ?? 1000;
    const rows = expired.all({ limit, now });
    for (const row of rows) {
      const retryDelayMs = input.retryDelayMs({ kind: row.kind, attempts: row.attempts });
      const written = recover.get({ id: row.id, version: row.version, retryDelayMs, now });
      if (!written) continue;
      if (written.status === 'FAILED') failed += 1;
      else requeued += 1;
      recovered.push({ kind: written.kind, queue: written.queue, failed: written.status === 'FAILED' });
    }
    // A full page leaves expired leases for the next call (as on PostgreSQL, not read then).
    let nextLeaseExpiryInMs: number | null = 0;
    if (rows.length < limit) {
      const next = nextExpiry.get({ now });
      nextLeaseExpiryInMs =
        next?.next_expiry == null
          ? null
          : new Date(next.next_expiry).getTime() - new Date(next.now).getTime();
    }
    return { requeued, failed, recovered, nextLeaseExpiryInMs };
  });
  return (input) => sweep.immediate(input);
}

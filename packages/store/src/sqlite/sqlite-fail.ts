import type Database from 'better-sqlite3';
import type { FailInput, FailOutcome } from '../store.js';
import { toSqliteTime } from './sqlite-row.js';
import { SQLITE_NOW, sqliteNowPlus } from './sqlite-time.js';
import { sqliteAppendAttemptError } from './sqlite-attempt-errors.js';

// Invariant: only the current attempt records a failure; the job waits out its delay as
// SCHEDULED (or is PENDING at once for no delay) while attempts remain, and is FAILED otherwise
// (or at once when the failure is permanent). The error is appended to `errors` (the last 10
// kept) with the attempt's number and owner; a given progress replaces `progress`.
const FAIL = `
UPDATE nudge_jobs
   SET status = CASE WHEN @permanent = 1 OR attempts >= max_attempts THEN 'FAILED'
                     WHEN @retryDelayMs > 0 THEN 'SCHEDULED' ELSE 'PENDING' END,
       run_at = CASE WHEN @permanent = 1 OR attempts >= max_attempts THEN run_at
                     ELSE ${sqliteNowPlus('@retryDelayMs')} END,
       finished_at = CASE WHEN @permanent = 1 OR attempts >= max_attempts THEN ${SQLITE_NOW} END,
       last_error = @error,
       errors = ${sqliteAppendAttemptError('attempts', SQLITE_NOW, '@error', 'claimed_by')},
       progress = coalesce(@progress, progress),
       lease_expires_at = NULL
 WHERE id = @id AND version = @version AND status = 'RUNNING'
RETURNING id, version, status, has_dependents`;

/** A row the failure returned, with `has_dependents` still a column (see `JobLease.hasDependents`). */
type FailedRow = Omit<FailOutcome, 'hasDependents'> & { readonly has_dependents: number };

/** Prepares the SQLite failure recording; see {@link Store.fail}. */
export function createSqliteFail(
  db: Database.Database,
): (items: readonly FailInput[], now?: Date) => FailOutcome[] {
  const statement = db.prepare<Record<string, unknown>, FailedRow>(FAIL);
  const fail = db.transaction((items: readonly FailInput[], now: string | null) =>
    items.flatMap((item) =>
      statement
        .all({
          id: item.id,
          version: item.version,
          error: item.error,
          retryDelayMs: item.retryDelayMs,
          permanent: item.permanent === true ? 1 : 0,
          progress: item.progressJson ?? null,
          now,
        })
        .map(({ has_dependents, ...outcome }) =>
          has_dependents === 1 ? { ...outcome, hasDependents: true as const } : outcome,
        ),
    ),
  );
  return (items, now) => (items.length === 0 ? [] : fail.immediate(items, toSqliteTime(now)));
}

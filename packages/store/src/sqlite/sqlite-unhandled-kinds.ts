import type Database from 'better-sqlite3';
import type { UnhandledKindsInput, UnhandledKindsResult } from '../store.js';
import { toSqliteTime } from './sqlite-row.js';
import { SQLITE_NOW, sqliteNowMinus } from './sqlite-time.js';
import { sqliteAppendAttemptError } from './sqlite-attempt-errors.js';

const LIVE_KINDS = `
SELECT DISTINCT k.value FROM nudge_instances AS i, json_each(i.kinds) AS k
 WHERE i.last_seen_at > ${sqliteNowMinus('@ttlMs')}`;

const UNHANDLED_ERROR = `'no running instance has a handler for kind "' || kind || '" (kinds handled now: '
                    || coalesce((SELECT group_concat(value, ', ') FROM (${LIVE_KINDS} ORDER BY 1)), 'none')
                    || '): deploy a handler module that exports it, or enqueue a known kind'`;

// Invariant: a PENDING job is failed only when it has been due for longer than the grace and no
// instance seen within the TTL lists its kind; one statement under BEGIN IMMEDIATE. The error is
// appended to `errors` as the attempt that could not start (attempts + 1, no instance).
const FAIL_UNHANDLED = `
UPDATE nudge_jobs
   SET status = 'FAILED',
       finished_at = ${SQLITE_NOW},
       last_error = ${UNHANDLED_ERROR},
       errors = ${sqliteAppendAttemptError('attempts + 1', SQLITE_NOW, UNHANDLED_ERROR, 'NULL')}
 WHERE id IN (SELECT id FROM nudge_jobs
               WHERE status = 'PENDING' AND run_at < ${sqliteNowMinus('@graceMs')}
                 AND kind NOT IN (${LIVE_KINDS})
               LIMIT @limit)
RETURNING kind`;

/** Prepares the failing of jobs whose kind nobody handles; see {@link Store.failUnhandledKinds}. */
export function createSqliteUnhandledKinds(
  db: Database.Database,
): (input: UnhandledKindsInput) => UnhandledKindsResult {
  const statement = db.prepare<Record<string, unknown>, { kind: string }>(FAIL_UNHANDLED);
  const run = db.transaction((input: UnhandledKindsInput) =>
    statement.all({
      ttlMs: input.instanceTtlMs,
      graceMs: input.graceMs,
      limit: input.limit ?? 1000,
      now: toSqliteTime(input.now),
    }),
  );
  return (input) => {
    const rows = run.immediate(input);
    return { failed: rows.length, kinds: [...new Set(rows.map((row) => row.kind))].sort() };
  };
}

import type Database from 'better-sqlite3';
import type { UnhandledKindsInput, UnhandledKindsResult } from '../store.js';
import { toSqliteTime } from './sqlite-row.js';
import { SQLITE_NOW, sqliteNowMinus } from './sqlite-time.js';
import { sqliteAppendAttemptError } from './sqlite-attempt-errors.js';
import { isRowWriteError, type IsolatedWrite, type IsolatedWrites } from '../isolated-writes.js';
import { sqliteNoteIsolated, sqliteWriteIsolating } from './sqlite-isolating.js';

const LIVE_KINDS = `
SELECT DISTINCT k.value FROM nudge_instances AS i, json_each(i.kinds) AS k
 WHERE i.last_seen_at > ${sqliteNowMinus('@ttlMs')}`;

const UNHANDLED_ERROR = `'no running instance has a handler for kind "' || kind || '" (kinds handled now: '
                    || coalesce((SELECT group_concat(value, ', ') FROM (${LIVE_KINDS} ORDER BY 1)), 'none')
                    || '): deploy a handler module that exports it, or enqueue a known kind'`;

// Invariant: a PENDING job is failed only when it has been due for longer than the grace and no
// instance seen within the TTL lists its kind; one statement under BEGIN IMMEDIATE. The error is
// appended to `errors` as the attempt that could not start (attempts + 1, no instance).
const SET_FAILED = `
   SET status = 'FAILED',
       finished_at = ${SQLITE_NOW},
       last_error = ${UNHANDLED_ERROR},
       errors = ${sqliteAppendAttemptError('attempts + 1', SQLITE_NOW, UNHANDLED_ERROR, 'NULL')}`;
const STRANDED = `
SELECT id FROM nudge_jobs
 WHERE status = 'PENDING' AND run_at < ${sqliteNowMinus('@graceMs')}
   AND kind NOT IN (${LIVE_KINDS})
 LIMIT @limit`;
const FAIL_UNHANDLED = `
UPDATE nudge_jobs${SET_FAILED}
 WHERE id IN (${STRANDED})
RETURNING kind`;
// By parts, after the database refused a page: the stranded rows, then each part by id.
const FAIL_IDS = `
UPDATE nudge_jobs${SET_FAILED}
 WHERE id IN (SELECT value FROM json_each(@ids)) AND status = 'PENDING'
RETURNING kind`;

/**
 * Prepares the failing of jobs whose kind nobody handles; see {@link Store.failUnhandledKinds}. A
 * page the database refuses is failed again by parts, isolating the rows it refuses (reported to
 * `isolated`; they stay `PENDING`).
 */
export function createSqliteUnhandledKinds(
  db: Database.Database,
  isolated: IsolatedWrites,
): (input: UnhandledKindsInput) => UnhandledKindsResult {
  const statement = db.prepare<Record<string, unknown>, { kind: string }>(FAIL_UNHANDLED);
  const stranded = db.prepare<Record<string, unknown>, { id: number }>(STRANDED);
  const failIds = db.prepare<Record<string, unknown>, { kind: string }>(FAIL_IDS);
  const page = db.transaction((params: Record<string, unknown>) => statement.all(params).map((r) => r.kind));
  const run = db.transaction((input: UnhandledKindsInput): { kinds: string[]; refused: IsolatedWrite[] } => {
    const now = toSqliteTime(input.now);
    const params = { ttlMs: input.instanceTtlMs, graceMs: input.graceMs, limit: input.limit ?? 1000, now };
    try {
      return { kinds: page(params), refused: [] };
    } catch (error) {
      if (!isRowWriteError(error)) throw error;
    }
    const rows = stranded.all(params);
    const written = sqliteWriteIsolating(db, 'unhandled-kinds', rows, (part) =>
      failIds
        .all({ ttlMs: input.instanceTtlMs, now, ids: JSON.stringify(part.map((r) => r.id)) })
        .map((r) => r.kind),
    );
    sqliteNoteIsolated(db, written.isolated, { now });
    return { kinds: written.results, refused: written.isolated };
  });
  return (input) => {
    const { kinds, refused } = run.immediate(input);
    isolated.report(refused);
    return { failed: kinds.length, kinds: [...new Set(kinds)].sort() };
  };
}

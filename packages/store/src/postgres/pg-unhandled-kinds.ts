import type pg from 'pg';
import type { UnhandledKindsInput, UnhandledKindsResult } from '../store.js';
import { pgAppendAttemptError } from './pg-attempt-errors.js';
import { pgMs, pgNow } from './pg-row.js';

const unhandledError = `'no running instance has a handler for kind "' || j.kind || '" (kinds handled now: '
                    || coalesce((SELECT string_agg(kind, ', ' ORDER BY kind) FROM live), 'none')
                    || '): deploy a handler module that exports it, or enqueue a known kind'`;

// Invariant: a PENDING job is failed only when it has been due for longer than the grace and no
// instance seen within the TTL lists its kind; rows a claimer holds are skipped, and the status
// check in the UPDATE leaves alone a job claimed meanwhile. The error is appended to `errors` as
// the attempt that could not start (attempts + 1, no instance).
const FAIL_UNHANDLED = `
WITH live AS (
  SELECT DISTINCT unnest(kinds) AS kind FROM nudge_instances
   WHERE last_seen_at > ${pgNow('$1')} - ${pgMs('$2')}
), stranded AS (
  SELECT id FROM nudge_jobs
   WHERE status = 'PENDING' AND run_at < ${pgNow('$1')} - ${pgMs('$3')}
     AND kind NOT IN (SELECT kind FROM live)
   LIMIT $4
   FOR UPDATE SKIP LOCKED
)
UPDATE nudge_jobs AS j
   SET status = 'FAILED',
       finished_at = ${pgNow('$1')},
       last_error = ${unhandledError},
       errors = ${pgAppendAttemptError('j.attempts + 1', pgNow('$1'), unhandledError, 'NULL::text')}
 WHERE j.id = ANY(ARRAY(SELECT id FROM stranded)) AND j.status = 'PENDING'
RETURNING j.kind`;

/** Fails jobs whose kind nobody handles; see {@link Store.failUnhandledKinds}. */
export async function pgFailUnhandledKinds(
  pool: pg.Pool,
  input: UnhandledKindsInput,
): Promise<UnhandledKindsResult> {
  const { rows } = await pool.query<{ kind: string }>({
    name: 'nudge_fail_unhandled_kinds',
    text: FAIL_UNHANDLED,
    values: [input.now ?? null, input.instanceTtlMs, input.graceMs, input.limit ?? 1000],
  });
  return { failed: rows.length, kinds: [...new Set(rows.map((row) => row.kind))].sort() };
}

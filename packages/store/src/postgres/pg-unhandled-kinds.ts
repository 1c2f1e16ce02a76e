import type pg from 'pg';
import type { UnhandledKindsInput, UnhandledKindsResult } from '../store.js';
import { pgAppendAttemptError } from './pg-attempt-errors.js';
import { pgMs, pgNow } from './pg-row.js';
import { isRowWriteError, type IsolatedWrite, type IsolatedWrites } from '../isolated-writes.js';
import { pgNoteIsolated, pgWriteIsolating } from './pg-isolating.js';
import { pgTransaction } from './pg-transaction.js';

const unhandledError = `'no running instance has a handler for kind "' || j.kind || '" (kinds handled now: '
                    || coalesce((SELECT string_agg(kind, ', ' ORDER BY kind) FROM live), 'none')
                    || '): deploy a handler module that exports it, or enqueue a known kind'`;

// Invariant: a PENDING job is failed only when it has been due for longer than the grace and no
// instance seen within the TTL lists its kind; rows a claimer holds are skipped, and the status
// check in the UPDATE leaves alone a job claimed meanwhile. The error is appended to `errors` as
// the attempt that could not start (attempts + 1, no instance).
const LIVE = `
  SELECT DISTINCT unnest(kinds) AS kind FROM nudge_instances
   WHERE last_seen_at > ${pgNow('$1')} - ${pgMs('$2')}`;
const SET_FAILED = `
   SET status = 'FAILED',
       finished_at = ${pgNow('$1')},
       last_error = ${unhandledError},
       errors = ${pgAppendAttemptError('j.attempts + 1', pgNow('$1'), unhandledError, 'NULL::text')}`;
const FAIL_UNHANDLED = `
WITH live AS (${LIVE}
), stranded AS (
  SELECT id FROM nudge_jobs
   WHERE status = 'PENDING' AND run_at < ${pgNow('$1')} - ${pgMs('$3')}
     AND kind NOT IN (SELECT kind FROM live)
   LIMIT $4
   FOR UPDATE SKIP LOCKED
)
UPDATE nudge_jobs AS j${SET_FAILED}
 WHERE j.id = ANY(ARRAY(SELECT id FROM stranded)) AND j.status = 'PENDING'
RETURNING j.kind`;

// By parts, after the database refused a page: the stranded rows, then each part by id.
const STRANDED = `
SELECT id FROM nudge_jobs
 WHERE status = 'PENDING' AND run_at < ${pgNow('$1')} - ${pgMs('$3')}
   AND kind NOT IN (${LIVE})
 LIMIT $4
 FOR UPDATE SKIP LOCKED`;
const FAIL_IDS = `
WITH live AS (${LIVE})
UPDATE nudge_jobs AS j${SET_FAILED}
 WHERE j.id = ANY($3::bigint[]) AND j.status = 'PENDING'
RETURNING j.kind`;

/** Fails a page by parts, isolating the rows the database refuses. */
async function failByParts(
  pool: pg.Pool,
  input: UnhandledKindsInput,
): Promise<{ kinds: string[]; refused: IsolatedWrite[] }> {
  return pgTransaction(pool, async (client) => {
    const now = input.now ?? null;
    const { rows } = await client.query<{ id: number }>(STRANDED, [
      now,
      input.instanceTtlMs,
      input.graceMs,
      input.limit ?? 1000,
    ]);
    const written = await pgWriteIsolating(client, 'unhandled-kinds', rows, async (part) => {
      const result = await client.query<{ kind: string }>(FAIL_IDS, [
        now,
        input.instanceTtlMs,
        part.map((r) => r.id),
      ]);
      return result.rows.map((r) => r.kind);
    });
    await pgNoteIsolated(client, written.isolated, { inTransaction: true });
    return { kinds: written.results, refused: written.isolated };
  });
}

/**
 * Fails jobs whose kind nobody handles; see {@link Store.failUnhandledKinds}. A page the database
 * refuses is failed again by parts, isolating the rows it refuses (reported to `isolated`; they
 * stay `PENDING`).
 */
export async function pgFailUnhandledKinds(
  pool: pg.Pool,
  input: UnhandledKindsInput,
  isolated: IsolatedWrites,
): Promise<UnhandledKindsResult> {
  let kinds: string[];
  try {
    const { rows } = await pool.query<{ kind: string }>({
      name: 'nudge_fail_unhandled_kinds',
      text: FAIL_UNHANDLED,
      values: [input.now ?? null, input.instanceTtlMs, input.graceMs, input.limit ?? 1000],
    });
    kinds = rows.map((row) => row.kind);
  } catch (error) {
    if (!isRowWriteError(error)) throw error;
    const byParts = await failByParts(pool, input);
    isolated.report(byParts.refused);
    kinds = byParts.kinds;
  }
  return { failed: kinds.length, kinds: [...new Set(kinds)].sort() };
}

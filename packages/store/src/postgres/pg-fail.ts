import type pg from 'pg';
import type { FailInput, FailOutcome } from '../store.js';
import { pgMs, pgNow } from './pg-row.js';

// Invariant: only the current attempt records a failure; the job retries after its delay while
// attempts remain, and is FAILED otherwise (or at once when the failure is permanent).
const FAIL = `
UPDATE nudge_jobs AS j
   SET status = CASE WHEN t.permanent OR j.attempts >= j.max_attempts THEN 'FAILED' ELSE 'PENDING' END,
       run_at = CASE WHEN t.permanent OR j.attempts >= j.max_attempts THEN j.run_at
                     ELSE ${pgNow('$6')} + ${pgMs('t.delay_ms')} END,
       finished_at = CASE WHEN t.permanent OR j.attempts >= j.max_attempts THEN ${pgNow('$6')} END,
       last_error = t.error,
       lease_expires_at = NULL
  FROM unnest($1::bigint[], $2::integer[], $3::text[], $4::double precision[], $5::boolean[])
       AS t(id, version, error, delay_ms, permanent)
 WHERE j.id = t.id AND j.version = t.version AND j.status = 'RUNNING'
RETURNING j.id, j.version, j.status`;

/** The PostgreSQL failure recording, one statement for the batch; see {@link Store.fail}. */
export async function pgFail(pool: pg.Pool, items: readonly FailInput[], now?: Date): Promise<FailOutcome[]> {
  if (items.length === 0) return [];
  const { rows } = await pool.query<FailOutcome>(FAIL, [
    items.map((i) => i.id),
    items.map((i) => i.version),
    items.map((i) => i.error),
    items.map((i) => i.retryDelayMs),
    items.map((i) => i.permanent === true),
    now ?? null,
  ]);
  return rows;
}

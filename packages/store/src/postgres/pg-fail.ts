import type pg from 'pg';
import type { FailInput, FailOutcome } from '../store.js';
import { pgAppendAttemptError } from './pg-attempt-errors.js';
import { pgIdArray, pgLeaseMap, pgLeaseMatches, pgLeaseText, pgLeaseValue } from './pg-lease-map.js';
import { pgMs, pgNow } from './pg-row.js';

const error = pgLeaseText('$2', 1);
const delayMs = `${pgLeaseText('$2', 2)}::double precision`;
const final = `(${pgLeaseText('$2', 3)}::boolean OR j.attempts >= j.max_attempts)`;

// Invariant: only the current attempt records a failure; the job waits out its delay as
// SCHEDULED (or is PENDING at once for no delay) while attempts remain, and is FAILED otherwise
// (or at once when the failure is permanent). The error is appended to `errors` (the last 10
// kept) with the attempt's number and owner. $2 maps each id to
// [version, error, delay, permanent] or [version, error, delay, permanent, progress].
const FAIL = `
UPDATE nudge_jobs AS j
   SET status = CASE WHEN ${final} THEN 'FAILED' WHEN ${delayMs} > 0 THEN 'SCHEDULED' ELSE 'PENDING' END,
       run_at = CASE WHEN ${final} THEN j.run_at ELSE ${pgNow('$3')} + ${pgMs(delayMs)} END,
       finished_at = CASE WHEN ${final} THEN ${pgNow('$3')} END,
       last_error = ${error},
       errors = ${pgAppendAttemptError('j.attempts', pgNow('$3'), error, 'j.claimed_by')},
       progress = coalesce(${pgLeaseValue('$2', 4)}, j.progress),
       lease_expires_at = NULL
 WHERE j.id = ANY($1::bigint[]) AND j.status = 'RUNNING' AND ${pgLeaseMatches('$2')}
RETURNING j.id, j.version, j.status, j.has_dependents`;

/** A row the failure returned, with `has_dependents` still a column (see `JobLease.hasDependents`). */
type FailedRow = Omit<FailOutcome, 'hasDependents'> & { readonly has_dependents: boolean };

/** The PostgreSQL failure recording, one statement for the batch; see {@link Store.fail}. */
export async function pgFail(pool: pg.Pool, items: readonly FailInput[], now?: Date): Promise<FailOutcome[]> {
  if (items.length === 0) return [];
  const { rows } = await pool.query<FailedRow>({
    name: 'nudge_fail',
    text: FAIL,
    values: [
      pgIdArray(items),
      pgLeaseMap(items, (i) => [
        JSON.stringify(i.error),
        String(i.retryDelayMs),
        String(i.permanent === true),
        ...(i.progressJson === undefined ? [] : [i.progressJson]),
      ]),
      now ?? null,
    ],
  });
  return rows.map(({ has_dependents, ...outcome }) =>
    has_dependents ? { ...outcome, hasDependents: true as const } : outcome,
  );
}

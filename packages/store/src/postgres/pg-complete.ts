import type pg from 'pg';
import type { CompleteInput, JobLease } from '../store.js';
import { pgIdArray, pgLeaseMap, pgLeaseMatches, pgLeaseValue } from './pg-lease-map.js';
import { pgNow } from './pg-row.js';

// Invariant: only the current attempt (same id and version, still RUNNING) records a success.
// $2 maps each id to [version] or [version, result]; a missing result is SQL NULL.
const COMPLETE = `
UPDATE nudge_jobs AS j
   SET status = 'SUCCEEDED', result = ${pgLeaseValue('$2', 1)}, finished_at = ${pgNow('$3')}, lease_expires_at = NULL
 WHERE j.id = ANY($1::bigint[]) AND j.status = 'RUNNING' AND ${pgLeaseMatches('$2')}
RETURNING j.id, j.version`;

/** The PostgreSQL completion, one statement for the batch; see {@link Store.complete}. */
export async function pgComplete(
  pool: pg.Pool,
  items: readonly CompleteInput[],
  now?: Date,
): Promise<JobLease[]> {
  if (items.length === 0) return [];
  const { rows } = await pool.query<JobLease>({
    name: 'nudge_complete',
    text: COMPLETE,
    values: [
      pgIdArray(items),
      pgLeaseMap(items, (i) => (i.resultJson === null ? [] : [i.resultJson])),
      now ?? null,
    ],
  });
  return rows;
}

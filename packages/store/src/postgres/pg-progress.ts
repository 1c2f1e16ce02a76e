import type pg from 'pg';
import type { JobLease, ProgressInput } from '../store.js';
import { pgIdArray, pgLeaseMap, pgLeaseMatches, pgLeaseValue } from './pg-lease-map.js';

// Invariant: only the current attempt (same id and version, still RUNNING) records progress.
// $2 maps each id to [version, progress].
const SET_PROGRESS = `
UPDATE nudge_jobs AS j
   SET progress = ${pgLeaseValue('$2', 1)}
 WHERE j.id = ANY($1::bigint[]) AND j.status = 'RUNNING' AND ${pgLeaseMatches('$2')}
RETURNING j.id, j.version`;

/** The PostgreSQL progress write, one statement for the batch; see {@link Store.setProgress}. */
export async function pgSetProgress(pool: pg.Pool, items: readonly ProgressInput[]): Promise<JobLease[]> {
  if (items.length === 0) return [];
  const { rows } = await pool.query<JobLease>({
    name: 'nudge_set_progress',
    text: SET_PROGRESS,
    values: [pgIdArray(items), pgLeaseMap(items, (i) => [i.progressJson])],
  });
  return rows;
}

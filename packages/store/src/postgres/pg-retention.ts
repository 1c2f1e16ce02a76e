import type pg from 'pg';
import type { TerminalStatus } from '@nudge/core';
import type { PruneInput } from '../retention-types.js';
import { pgMs, pgNow } from './pg-row.js';

// $1 status. A loose index scan: each step finds the next kind above the last one through the
// (status, kind, finished_at) index, so the cost grows with the number of kinds, not rows.
export const PG_FINISHED_KINDS = `
WITH RECURSIVE kinds(kind) AS (
  SELECT min(kind) FROM nudge_jobs WHERE status = $1 AND finished_at IS NOT NULL
  UNION ALL
  SELECT (SELECT min(j.kind) FROM nudge_jobs AS j
           WHERE j.status = $1 AND j.finished_at IS NOT NULL AND j.kind > kinds.kind)
    FROM kinds WHERE kinds.kind IS NOT NULL
)
SELECT kind FROM kinds WHERE kind IS NOT NULL`;

// $1 status, $2 kind, $3 age in ms, $4 now (NULL: the database clock), $5 limit. Oldest first, a range of the finished index; SKIP LOCKED keeps two pruners from queueing on
// each other's rows. Finished rows are never updated by the hot path, so nothing else waits.
export const PG_PRUNE_FINISHED = `
DELETE FROM nudge_jobs
 WHERE id IN (SELECT id FROM nudge_jobs
               WHERE status = $1 AND kind = $2 AND finished_at < ${pgNow('$4')} - ${pgMs('$3')}
               ORDER BY finished_at
               LIMIT $5
               FOR UPDATE SKIP LOCKED)`;

/** See {@link Store.finishedKinds}. */
export async function pgFinishedKinds(pool: pg.Pool, status: TerminalStatus): Promise<string[]> {
  const { rows } = await pool.query<{ kind: string }>(PG_FINISHED_KINDS, [status]);
  return rows.map((row) => row.kind);
}

/** See {@link Store.pruneFinished}. */
export async function pgPruneFinished(pool: pg.Pool, input: PruneInput): Promise<number> {
  const { rowCount } = await pool.query(PG_PRUNE_FINISHED, [
    input.status,
    input.kind,
    input.olderThanMs,
    input.now ?? null,
    input.limit,
  ]);
  return rowCount ?? 0;
}

import type pg from 'pg';
import { FINISHED_KINDS_SQL } from '../finished-kinds-sql.js';
import type { FinishedKind, PruneInput } from '../retention-types.js';
import { pgMs, pgNow } from './pg-row.js';

/** The finished kinds listing ({@link FINISHED_KINDS_SQL}, the same text on both dialects). */
export const PG_FINISHED_KINDS = FINISHED_KINDS_SQL;

// $1 status, $2 kind, $3 age in ms, $4 now (NULL: the database clock), $5 limit. Oldest first, a
// range of the finished index; SKIP LOCKED keeps two pruners from queueing on each other's rows.
// The ids come as one array (an InitPlan), so the delete always finds its rows by primary key:
// an `IN (subquery)` join may flip to a scan of the whole table once VACUUM updates the table's
// size estimates (seen in the retention bench: deletes of seconds).
export const PG_PRUNE_FINISHED = `
DELETE FROM nudge_jobs
 WHERE id = ANY(ARRAY(SELECT id FROM nudge_jobs
                       WHERE status = $1 AND kind = $2 AND finished_at < ${pgNow('$4')} - ${pgMs('$3')}
                       ORDER BY finished_at
                       LIMIT $5
                       FOR UPDATE SKIP LOCKED))`;

/** See {@link Store.finishedKinds}. */
export async function pgFinishedKinds(pool: pg.Pool): Promise<FinishedKind[]> {
  const { rows } = await pool.query<FinishedKind>(PG_FINISHED_KINDS);
  return rows;
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

/**
 * Longest a vacuum of the jobs table may run, in ms: far above the query timeout, because a
 * vacuum cancelled part way reclaims little, and it blocks no reader or writer meanwhile.
 */
export const VACUUM_TIMEOUT_MS = 600_000;

/** See {@link Store.reclaimSpace}. */
export async function pgReclaimSpace(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  let failure: Error | undefined;
  try {
    // VACUUM cannot run in a transaction: each query here is its own statement.
    await client.query(`SET statement_timeout = ${VACUUM_TIMEOUT_MS}`);
    // node-postgres reads a per-query query_timeout; its types do not declare it.
    const vacuum = { text: 'VACUUM (SKIP_LOCKED) nudge_jobs', query_timeout: VACUUM_TIMEOUT_MS + 5000 };
    await client.query(vacuum as pg.QueryConfig);
    await client.query('RESET statement_timeout');
  } catch (error) {
    failure = error instanceof Error ? error : new Error(String(error));
    throw error;
  } finally {
    // A connection left with the long timeout (or broken) is discarded, not reused.
    client.release(failure);
  }
}

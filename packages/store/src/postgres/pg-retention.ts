import type pg from 'pg';
import { FINISHED_KINDS_SQL } from '../finished-kinds-sql.js';
import type { FinishedKind, PruneInput } from '../retention-types.js';
import { pgMs, pgNow } from './pg-row.js';
import { isRowWriteError, type IsolatedWrite, type IsolatedWrites } from '../isolated-writes.js';
import { pgNoteIsolated, pgWriteIsolating } from './pg-isolating.js';
import { pgTransaction } from './pg-transaction.js';

/** The finished kinds listing ({@link FINISHED_KINDS_SQL}, the same text on both dialects). */
export const PG_FINISHED_KINDS = FINISHED_KINDS_SQL;

/**
 * Keeps a throttled job whose window is still open (`closes_at` after now, `$4` the clock): the
 * window lasts while its job is kept, so deleting the job would end the window early. An
 * unthrottled job skips the lookup; a throttled one takes one probe of the windows' job index.
 */
const WINDOW_CLOSED = `(throttle_key IS NULL OR NOT EXISTS (
                         SELECT 1 FROM nudge_throttle_windows w
                          WHERE w.job_id = nudge_jobs.id AND w.closes_at > ${pgNow('$4')}))`;

// $1 status, $2 kind, $3 age in ms, $4 now (NULL: the database clock), $5 limit. Oldest first, a
// range of the finished index; SKIP LOCKED keeps two pruners from queueing on each other's rows.
// The ids come as one array (an InitPlan), so the delete always finds its rows by primary key:
// an `IN (subquery)` join may flip to a scan of the whole table once VACUUM updates the table's
// size estimates (seen in the retention bench: deletes of seconds).
export const PG_PRUNE_FINISHED = `
DELETE FROM nudge_jobs
 WHERE id = ANY(ARRAY(SELECT id FROM nudge_jobs
                       WHERE status = $1 AND kind = $2 AND finished_at < ${pgNow('$4')} - ${pgMs('$3')}
                         AND ${WINDOW_CLOSED}
                       ORDER BY finished_at
                       LIMIT $5
                       FOR UPDATE SKIP LOCKED))`;

/** See {@link Store.finishedKinds}. */
export async function pgFinishedKinds(pool: pg.Pool): Promise<FinishedKind[]> {
  const { rows } = await pool.query<FinishedKind>(PG_FINISHED_KINDS);
  return rows;
}

// The prune by parts, after the database refused a batch: the batch's rows less those already
// refused ($6), then each part of them by id.
const PRUNE_CANDIDATES = `
SELECT id FROM nudge_jobs
 WHERE status = $1 AND kind = $2 AND finished_at < ${pgNow('$4')} - ${pgMs('$3')}
   AND ${WINDOW_CLOSED}
   AND id <> ALL($6::bigint[])
 ORDER BY finished_at
 LIMIT $5
 FOR UPDATE SKIP LOCKED`;
const PRUNE_IDS = `DELETE FROM nudge_jobs WHERE id = ANY($1::bigint[]) RETURNING id`;

/**
 * Deletes a batch by parts, isolating the rows the database refuses; tops the batch up past them,
 * so a call still deletes `limit` rows while there are that many (and the pruner goes on).
 */
async function pruneByParts(
  pool: pg.Pool,
  input: PruneInput,
): Promise<{ deleted: number; refused: IsolatedWrite[] }> {
  return pgTransaction(pool, async (client) => {
    const refused: IsolatedWrite[] = [];
    let deleted = 0;
    for (;;) {
      const want = input.limit - deleted;
      const { rows } = await client.query<{ id: string }>(PRUNE_CANDIDATES, [
        input.status,
        input.kind,
        input.olderThanMs,
        input.now ?? null,
        want,
        refused.map((r) => r.jobId),
      ]);
      const ids = rows.map((r) => ({ id: Number(r.id) }));
      const written = await pgWriteIsolating(client, 'retention', ids, async (part) => {
        const result = await client.query<{ id: string }>(PRUNE_IDS, [part.map((r) => r.id)]);
        return result.rows;
      });
      deleted += written.results.length;
      refused.push(...written.isolated);
      if (written.isolated.length === 0 || rows.length < want || deleted >= input.limit) break;
    }
    await pgNoteIsolated(client, refused, { inTransaction: true });
    return { deleted, refused };
  });
}

/**
 * See {@link Store.pruneFinished}. A batch the database refuses is deleted again by parts,
 * isolating the rows it refuses (reported to `isolated`; they stay, and the next run meets them
 * again).
 */
export async function pgPruneFinished(
  pool: pg.Pool,
  input: PruneInput,
  isolated: IsolatedWrites,
): Promise<number> {
  try {
    const { rowCount } = await pool.query(PG_PRUNE_FINISHED, [
      input.status,
      input.kind,
      input.olderThanMs,
      input.now ?? null,
      input.limit,
    ]);
    return rowCount ?? 0;
  } catch (error) {
    if (!isRowWriteError(error)) throw error;
    const { deleted, refused } = await pruneByParts(pool, input);
    isolated.report(refused);
    return deleted;
  }
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

import type pg from 'pg';
import type { PromoteInput, PromoteResult } from '../store.js';
import { pgNow } from './pg-row.js';
import {
  isRowWriteError,
  ISOLATED_RETRY_DELAY_MS,
  type IsolatedWrite,
  type IsolatedWrites,
} from '../isolated-writes.js';
import { pgNoteIsolated, pgWriteIsolating } from './pg-isolating.js';
import { pgTransaction } from './pg-transaction.js';

// Invariant: only SCHEDULED rows whose run_at has passed (database clock) become PENDING, each
// once: rows another promoter holds are skipped, and a row already promoted no longer matches.
// run_at is kept, so a promoted job takes its due place in claim order. The same statement reads
// what an idle instance's safety poll needs: whether any job is runnable (the rows this promotion
// made PENDING, which the statement's snapshot does not see, or any other due PENDING row), and when the earliest lease expires (the sweep's next due time).
const PROMOTE = `
WITH due AS (
  SELECT id FROM nudge_jobs
   WHERE status = 'SCHEDULED' AND run_at <= ${pgNow('$1')}
   ORDER BY run_at
   LIMIT $2
   FOR UPDATE SKIP LOCKED
), promoted AS (
  UPDATE nudge_jobs AS j SET status = 'PENDING' WHERE j.id = ANY(ARRAY(SELECT id FROM due)) RETURNING 1
)
SELECT (SELECT count(*) FROM promoted)::integer AS promoted,
       (SELECT extract(epoch FROM min(run_at) - ${pgNow('$1')}) * 1000
          FROM nudge_jobs
         WHERE status = 'SCHEDULED' AND run_at > ${pgNow('$1')})::double precision AS next_due_ms,
       (EXISTS (SELECT 1 FROM promoted)
        OR EXISTS (SELECT 1 FROM nudge_jobs
                    WHERE status = 'PENDING' AND run_at <= ${pgNow('$1')})) AS runnable,
       (SELECT extract(epoch FROM min(lease_expires_at) - ${pgNow('$1')}) * 1000
          FROM nudge_jobs
         WHERE lease_expires_at IS NOT NULL AND status = 'RUNNING')::double precision AS next_expiry_ms`;

// The promotion by parts, after the database refused the page: the due rows (locked, skipping
// rows another promoter holds), then each part of them by id.
const DUE = `
SELECT id FROM nudge_jobs
 WHERE status = 'SCHEDULED' AND run_at <= ${pgNow('$1')}
 ORDER BY run_at
 LIMIT $2
 FOR UPDATE SKIP LOCKED`;
const PROMOTE_IDS = `
UPDATE nudge_jobs SET status = 'PENDING' WHERE id = ANY($1::bigint[]) AND status = 'SCHEDULED' RETURNING id`;

/** Promotes a page by parts, isolating the rows the database refuses; @returns both counts. */
async function promoteByParts(
  pool: pg.Pool,
  input: PromoteInput,
): Promise<{ promoted: number; refused: IsolatedWrite[] }> {
  return pgTransaction(pool, async (client) => {
    const { rows } = await client.query<{ id: number }>(DUE, [input.now ?? null, input.limit ?? 1000]);
    const written = await pgWriteIsolating(client, 'promote', rows, async (part) => {
      const result = await client.query<{ id: number }>(PROMOTE_IDS, [part.map((r) => r.id)]);
      return result.rows;
    });
    const push = { column: 'run_at' as const, delayMs: () => ISOLATED_RETRY_DELAY_MS };
    await pgNoteIsolated(client, written.isolated, { inTransaction: true, push, now: input.now });
    return { promoted: written.results.length, refused: written.isolated };
  });
}

/**
 * The PostgreSQL promotion of due scheduled jobs; see {@link Store.promoteScheduled}. A page the
 * database refuses is promoted again by parts, isolating the rows it refuses (reported to
 * `isolated`, their `run_at` moved `ISOLATED_RETRY_DELAY_MS` later).
 */
export async function pgPromote(
  pool: pg.Pool,
  input: PromoteInput = {},
  isolated: IsolatedWrites,
): Promise<PromoteResult> {
  let byParts: { promoted: number; refused: IsolatedWrite[] } | undefined;
  const promote = (limit: number) =>
    pool.query<{
      promoted: number;
      next_due_ms: number | null;
      runnable: boolean;
      next_expiry_ms: number | null;
    }>({
      name: 'nudge_promote',
      text: PROMOTE,
      values: [input.now ?? null, limit],
    });
  let rows;
  try {
    ({ rows } = await promote(input.limit ?? 1000));
  } catch (error) {
    if (!isRowWriteError(error)) throw error;
    byParts = await promoteByParts(pool, input);
    isolated.report(byParts.refused);
    // The reads of the page's statement, promoting nothing more.
    ({ rows } = await promote(0));
  }
  const row = rows[0];
  return {
    promoted: byParts?.promoted ?? row?.promoted ?? 0,
    isolated: byParts?.refused.length ?? 0,
    nextDueInMs: row?.next_due_ms == null ? null : Math.max(0, row.next_due_ms),
    runnable: row?.runnable ?? false,
    nextLeaseExpiryInMs: row?.next_expiry_ms ?? null,
  };
}

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
// A signal wait whose deadline passed ends here, exactly once: the row is locked (skipping one a
// signal's insert holds), and a row a signal released meanwhile no longer matches when the lock
// re-reads it. Its wait's step row is marked TIMED_OUT in the same statement, so every later
// attempt's wait returns null, whatever signal comes after.
const SIGNAL_DEADLINES = `timed AS (
  SELECT id, wait_signal FROM nudge_jobs
   WHERE status = 'WAITING' AND wait_signal IS NOT NULL AND run_at <= ${pgNow('$1')}
   ORDER BY run_at
   LIMIT $2
   FOR UPDATE SKIP LOCKED
), timed_out AS (
  UPDATE nudge_jobs AS j SET status = 'PENDING', wait_signal = NULL
    FROM timed AS t WHERE j.id = t.id
  RETURNING j.id, t.wait_signal AS name
), marked AS (
  UPDATE nudge_job_steps AS s SET status = 'TIMED_OUT', ended_at = ${pgNow('$1')}
    FROM timed_out AS t WHERE s.job_id = t.id AND s.name = t.name AND s.status = 'WAITING'
  RETURNING 1
)`;

const PROMOTE = `
WITH due AS (
  SELECT id FROM nudge_jobs
   WHERE status = 'SCHEDULED' AND run_at <= ${pgNow('$1')}
   ORDER BY run_at
   LIMIT $2
   FOR UPDATE SKIP LOCKED
), promoted AS (
  UPDATE nudge_jobs AS j SET status = 'PENDING' WHERE j.id = ANY(ARRAY(SELECT id FROM due)) RETURNING 1
), ${SIGNAL_DEADLINES}
SELECT (SELECT count(*) FROM promoted)::integer AS promoted,
       (SELECT count(*) FROM timed_out)::integer AS timed_out,
       (SELECT extract(epoch FROM min(at) - ${pgNow('$1')}) * 1000
          FROM (SELECT min(run_at) AS at FROM nudge_jobs
                 WHERE status = 'SCHEDULED' AND run_at > ${pgNow('$1')}
                UNION ALL
                SELECT min(run_at) FROM nudge_jobs
                 WHERE status = 'WAITING' AND wait_signal IS NOT NULL
                   AND run_at > ${pgNow('$1')} AND run_at < 'infinity') AS next)::double precision AS next_due_ms,
       (EXISTS (SELECT 1 FROM promoted) OR EXISTS (SELECT 1 FROM timed_out)
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
      timed_out: number;
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
    ...(row?.timed_out ? { timedOut: row.timed_out } : {}),
    nextDueInMs: row?.next_due_ms == null ? null : Math.max(0, row.next_due_ms),
    runnable: row?.runnable ?? false,
    nextLeaseExpiryInMs: row?.next_expiry_ms ?? null,
  };
}

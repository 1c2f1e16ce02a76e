import type pg from 'pg';
import type { PromoteInput, PromoteResult } from '../store.js';
import { pgNow } from './pg-row.js';

// Invariant: only SCHEDULED rows whose run_at has passed (database clock) become PENDING, each
// once: rows another promoter holds are skipped, and a row already promoted no longer matches.
// run_at is kept, so a promoted job takes its due place in claim order. The same statement reads
// what an idle instance's safety poll needs: whether any job is runnable (the snapshot before this
// promotion), and when the earliest lease expires (the sweep's next due time).
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
       EXISTS (SELECT 1 FROM nudge_jobs
                WHERE status = 'PENDING' AND run_at <= ${pgNow('$1')}) AS runnable,
       (SELECT extract(epoch FROM min(lease_expires_at) - ${pgNow('$1')}) * 1000
          FROM nudge_jobs
         WHERE lease_expires_at IS NOT NULL AND status = 'RUNNING')::double precision AS next_expiry_ms`;

/** The PostgreSQL promotion of due scheduled jobs; see {@link Store.promoteScheduled}. */
export async function pgPromote(pool: pg.Pool, input: PromoteInput = {}): Promise<PromoteResult> {
  const { rows } = await pool.query<{
    promoted: number;
    next_due_ms: number | null;
    runnable: boolean;
    next_expiry_ms: number | null;
  }>({
    name: 'nudge_promote',
    text: PROMOTE,
    values: [input.now ?? null, input.limit ?? 1000],
  });
  const row = rows[0];
  return {
    promoted: row?.promoted ?? 0,
    nextDueInMs: row?.next_due_ms == null ? null : Math.max(0, row.next_due_ms),
    runnable: row?.runnable ?? false,
    nextLeaseExpiryInMs: row?.next_expiry_ms ?? null,
  };
}

import type pg from 'pg';
import type { RecoveredJob, SweepInput, SweepResult } from '../store.js';
import { pgIdArray, pgLeaseMap, pgLeaseMatches, pgLeaseText } from './pg-lease-map.js';
import { pgAppendAttemptError, pgIsoTime } from './pg-attempt-errors.js';
import { pgMs, pgNow } from './pg-row.js';
import { ISOLATED_RETRY_DELAY_MS, type IsolatedWrite, type IsolatedWrites } from '../isolated-writes.js';
import { pgNoteIsolated, pgWriteIsolating } from './pg-isolating.js';
import { pgTransaction } from './pg-transaction.js';

// Rows are locked (skipping rows another sweeper holds) until the transaction ends, so a
// complete or heartbeat for them waits, then finds its version gone or re-checks its state.
const EXPIRED = `
SELECT id, version, kind, attempts FROM nudge_jobs
 WHERE status = 'RUNNING' AND lease_expires_at < ${pgNow('$1')}
 ORDER BY lease_expires_at
 LIMIT $2
 FOR UPDATE SKIP LOCKED`;

const delayMs = `${pgLeaseText('$3', 1)}::double precision`;

const leaseError = `'lease expired at ' || ${pgIsoTime('j.lease_expires_at')}
                    || ': the instance ' || coalesce(j.claimed_by, '?')
                    || ' stopped heartbeating (crash, kill or stall)'`;

// Invariant: a row is recovered only if it is still the same expired attempt (same version,
// still RUNNING, lease still past); the version bump fences out the worker that lost the lease.
// The expiry is recorded as the attempt's error, in last_error and appended to errors.
// $3 maps each id to [version, retry delay in ms].
const RECOVER = `
UPDATE nudge_jobs AS j
   SET status = CASE WHEN j.attempts >= j.max_attempts THEN 'FAILED'
                     WHEN ${delayMs} > 0 THEN 'SCHEDULED' ELSE 'PENDING' END,
       run_at = CASE WHEN j.attempts >= j.max_attempts THEN j.run_at ELSE ${pgNow('$1')} + ${pgMs(delayMs)} END,
       finished_at = CASE WHEN j.attempts >= j.max_attempts THEN ${pgNow('$1')} END,
       version = j.version + 1,
       last_error = ${leaseError},
       errors = ${pgAppendAttemptError('j.attempts', pgNow('$1'), leaseError, 'j.claimed_by')},
       lease_expires_at = NULL
 WHERE j.id = ANY($2::bigint[]) AND j.status = 'RUNNING' AND ${pgLeaseMatches('$3')}
   AND j.lease_expires_at < ${pgNow('$1')}
RETURNING j.status, j.kind, j.queue`;

const NEXT_EXPIRY = `
SELECT (extract(epoch FROM min(lease_expires_at) - ${pgNow('$1')}) * 1000)::double precision AS next_expiry_ms
  FROM nudge_jobs
 WHERE lease_expires_at IS NOT NULL AND status = 'RUNNING'`;

interface ExpiredRow {
  id: number;
  version: number;
  kind: string;
  attempts: number;
}

/**
 * The PostgreSQL lease-expiry sweep, in one transaction; see {@link Store.sweepExpired}. The
 * recovery runs in a savepoint, so a row the database refuses is isolated (reported to
 * `isolated`, its lease pushed back by its retry delay, at least `ISOLATED_RETRY_DELAY_MS`) and the rest of the page is recovered.
 */
export async function pgSweep(
  pool: pg.Pool,
  input: SweepInput,
  isolated: IsolatedWrites,
): Promise<SweepResult> {
  const { result, toReport } = await pgTransaction(pool, async (client) => {
    const now = input.now ?? null;
    const limit = input.limit ?? 1000;
    const expired = await client.query<ExpiredRow>({
      name: 'nudge_sweep_expired',
      text: EXPIRED,
      values: [now, limit],
    });
    let requeued = 0;
    let failed = 0;
    const recovered: RecoveredJob[] = [];
    let refused = 0;
    let toReport: readonly IsolatedWrite[] = [];
    if (expired.rows.length > 0) {
      const rows = expired.rows;
      const delays = new Map(
        rows.map((r) => [r.id, input.retryDelayMs({ kind: r.kind, attempts: r.attempts })] as const),
      );
      const written = await pgWriteIsolating(client, 'sweep', rows, async (part) => {
        const { rows: recoveredRows } = await client.query<{ status: string; kind: string; queue: string }>({
          name: 'nudge_sweep_recover',
          text: RECOVER,
          values: [now, pgIdArray(part), pgLeaseMap(part, (r) => [String(delays.get(r.id) ?? 0)])],
        });
        return recoveredRows;
      });
      for (const row of written.results) {
        if (row.status === 'FAILED') failed += 1;
        else requeued += 1;
        recovered.push({ kind: row.kind, queue: row.queue, failed: row.status === 'FAILED' });
      }
      if (written.isolated.length > 0) {
        refused = written.isolated.length;
        const push = {
          column: 'lease_expires_at' as const,
          delayMs: (id: number) => Math.max(ISOLATED_RETRY_DELAY_MS, delays.get(id) ?? 0),
        };
        await pgNoteIsolated(client, written.isolated, { inTransaction: true, push, now: input.now });
        toReport = written.isolated;
      }
    }
    // Only on a short page: a full one leaves expired leases for the next call, and reading the
    // lease index past the rows this transaction just recovered costs more with every page.
    let nextLeaseExpiryInMs: number | null = 0;
    if (expired.rows.length < limit) {
      const next = await client.query<{ next_expiry_ms: number | null }>({
        name: 'nudge_sweep_next_expiry',
        text: NEXT_EXPIRY,
        values: [now],
      });
      nextLeaseExpiryInMs = next.rows[0]?.next_expiry_ms ?? null;
    }
    return { result: { requeued, failed, isolated: refused, recovered, nextLeaseExpiryInMs }, toReport };
  });
  isolated.report(toReport);
  return result;
}

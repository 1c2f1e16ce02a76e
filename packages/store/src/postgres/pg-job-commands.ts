import type pg from 'pg';
import { CANCELLABLE_STATUSES, RETRYABLE_STATUSES, type JobStatus } from '@nudge/core';
import type { JobCommandResult } from '../store.js';
import { pgNow, pgRowToJob, type PgJobRow } from './pg-row.js';

// Invariant: a command moves the row only from a status the transition table allows, in one
// statement that locks the row first (so a concurrent claim or outcome either happens before and
// is seen, or waits and then finds the version bumped); the previous status comes back with it.
const CANCEL = `
UPDATE nudge_jobs AS j
   SET status = 'CANCELLED', version = j.version + 1, lease_expires_at = NULL,
       finished_at = ${pgNow('$2')}
  FROM (SELECT id, status AS previous FROM nudge_jobs WHERE id = $1 FOR UPDATE) AS p
 WHERE j.id = p.id AND p.previous = ANY($3::text[])
RETURNING j.*, p.previous`;

const RETRY = `
UPDATE nudge_jobs AS j
   SET status = 'PENDING', version = j.version + 1, attempts = 0, run_at = ${pgNow('$2')},
       lease_expires_at = NULL, started_at = NULL, finished_at = NULL, result = NULL, progress = NULL
  FROM (SELECT id, status AS previous FROM nudge_jobs WHERE id = $1 FOR UPDATE) AS p
 WHERE j.id = p.id AND p.previous = ANY($3::text[])
RETURNING j.*, p.previous`;

async function command(
  pool: pg.Pool,
  text: string,
  from: readonly JobStatus[],
  id: number,
  now: Date | undefined,
): Promise<JobCommandResult> {
  const { rows } = await pool.query<PgJobRow & { previous: JobStatus }>(text, [id, now ?? null, from]);
  const changed = rows[0];
  if (changed) return { outcome: 'changed', job: pgRowToJob(changed), previous: changed.previous };
  const current = await pool.query<PgJobRow>('SELECT * FROM nudge_jobs WHERE id = $1', [id]);
  const row = current.rows[0];
  return row ? { outcome: 'conflict', job: pgRowToJob(row) } : { outcome: 'not-found' };
}

/** Cancels a job; see {@link Store.cancelJob}. */
export function pgCancelJob(pool: pg.Pool, id: number, now?: Date): Promise<JobCommandResult> {
  return command(pool, CANCEL, CANCELLABLE_STATUSES, id, now);
}

/** Retries a job; see {@link Store.retryJob}. */
export function pgRetryJob(pool: pg.Pool, id: number, now?: Date): Promise<JobCommandResult> {
  return command(pool, RETRY, RETRYABLE_STATUSES, id, now);
}

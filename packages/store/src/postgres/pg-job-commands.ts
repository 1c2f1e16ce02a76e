import type pg from 'pg';
import { CANCELLABLE_STATUSES, RETRYABLE_STATUSES, type JobStatus } from '@nudge/core';
import type { JobCommandResult } from '../store.js';
import { pgNow, pgRowToJob, type PgJobRow } from './pg-row.js';
import { PG_BLOCKING_DEPENDENCY, pgRetryCtes } from './pg-retry-sql.js';

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

// A retry also decides against the job's dependencies (see pgRetryCtes): a job that waits for one
// goes back to WAITING, one that would be cancelled again at once is left as it is.
const RETRY = `
WITH rows AS MATERIALIZED (
  SELECT id, status AS previous, depends_on, on_dependency_failure FROM nudge_jobs WHERE id = $1 FOR UPDATE),
${pgRetryCtes('false', 'p.previous = ANY($3::text[])', '$2')}
SELECT c.*, r.previous FROM changed AS c JOIN rows AS r ON r.id = c.id`;

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
  if (!row) return { outcome: 'not-found' };
  if (text === RETRY && from.includes(row.status as JobStatus)) {
    const blocking = await pool.query<{ id: string; status: 'FAILED' | 'CANCELLED' | null }>(
      PG_BLOCKING_DEPENDENCY,
      [id],
    );
    const dependency = blocking.rows[0];
    if (dependency) {
      return {
        outcome: 'blocked',
        job: pgRowToJob(row),
        dependency: { id: Number(dependency.id), status: dependency.status },
      };
    }
  }
  return { outcome: 'conflict', job: pgRowToJob(row) };
}

/** Cancels a job; see {@link Store.cancelJob}. */
export function pgCancelJob(pool: pg.Pool, id: number, now?: Date): Promise<JobCommandResult> {
  return command(pool, CANCEL, CANCELLABLE_STATUSES, id, now);
}

/** Retries a job; see {@link Store.retryJob}. */
export function pgRetryJob(pool: pg.Pool, id: number, now?: Date): Promise<JobCommandResult> {
  return command(pool, RETRY, RETRYABLE_STATUSES, id, now);
}

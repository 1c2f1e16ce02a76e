import type pg from 'pg';
import { CANCELLABLE_STATUSES, RETRYABLE_STATUSES, type JobStatus } from '@nudge/core';
import type { JobCommandResult } from '../store.js';
import { pgNow, pgRowToJob, type PgJobRow } from './pg-row.js';
import { checkRetrySteps, stepNotFoundError, type RetrySteps, type StepClearing } from '../retry-steps.js';
import { PG_BLOCKING_DEPENDENCY, PG_HAS_STEP, pgClearStepsCte, pgRetryCtes } from './pg-retry-sql.js';

// Invariant: a command moves the row only from a status the transition table allows, in one
// statement that locks the row first (so a concurrent claim or outcome either happens before and
// is seen, or waits and then finds the version bumped); the previous status comes back with it.
const CANCEL = `
UPDATE nudge_jobs AS j
   SET status = 'CANCELLED', version = j.version + 1, lease_expires_at = NULL, wait_signal = NULL,
       finished_at = ${pgNow('$2')}
  FROM (SELECT id, status AS previous FROM nudge_jobs WHERE id = $1 FOR UPDATE) AS p
 WHERE j.id = p.id AND p.previous = ANY($3::text[])
RETURNING j.*, p.previous`;

/**
 * A retry also decides against the job's dependencies (see pgRetryCtes): a job that waits for
 * one goes back to WAITING, one that would be cancelled again at once is left as it is. The
 * steps go in the same statement (see pgClearStepsCte); with `fromStep` ($4), a job without that
 * step is not changed (the caller then answers STEP_NOT_FOUND).
 */
function retrySql(clearing: StepClearing): string {
  const hasStep =
    clearing.type === 'from'
      ? ' AND EXISTS (SELECT 1 FROM nudge_job_steps WHERE job_id = p.id AND name = $4::text)'
      : '';
  return `
WITH rows AS MATERIALIZED (
  SELECT id, status AS previous, depends_on, on_dependency_failure FROM nudge_jobs WHERE id = $1 FOR UPDATE),
${pgRetryCtes('false', `p.previous = ANY($3::text[])${hasStep}`, '$2')}${pgClearStepsCte(clearing, '$4')}
SELECT c.*, r.previous FROM changed AS c JOIN rows AS r ON r.id = c.id`;
}

const RETRY: Readonly<Record<StepClearing['type'], string>> = {
  none: retrySql({ type: 'none' }),
  all: retrySql({ type: 'all' }),
  from: retrySql({ type: 'from', name: '' }),
};

/** The job of a command that changed nothing: not found, or its row as it is now. */
async function current(pool: pg.Pool, id: number): Promise<PgJobRow | undefined> {
  return (await pool.query<PgJobRow>('SELECT * FROM nudge_jobs WHERE id = $1', [id])).rows[0];
}

/** Cancels a job; see {@link Store.cancelJob}. */
export async function pgCancelJob(pool: pg.Pool, id: number, now?: Date): Promise<JobCommandResult> {
  const { rows } = await pool.query<PgJobRow & { previous: JobStatus }>(CANCEL, [
    id,
    now ?? null,
    CANCELLABLE_STATUSES,
  ]);
  const changed = rows[0];
  if (changed) return { outcome: 'changed', job: pgRowToJob(changed), previous: changed.previous };
  const row = await current(pool, id);
  return row ? { outcome: 'conflict', job: pgRowToJob(row) } : { outcome: 'not-found' };
}

/**
 * Retries a job and clears its steps as `steps` say, in one statement; see {@link Store.retryJob}.
 * When it changed nothing, the job's row says why: not found, a status a retry does not apply to
 * (`conflict`), no step named `fromStep` (STEP_NOT_FOUND), or a dependency that blocks it.
 */
export async function pgRetryJob(
  pool: pg.Pool,
  id: number,
  now?: Date,
  steps?: RetrySteps,
): Promise<JobCommandResult> {
  const clearing = checkRetrySteps(steps);
  const values: unknown[] = [id, now ?? null, RETRYABLE_STATUSES];
  if (clearing.type === 'from') values.push(clearing.name);
  const { rows } = await pool.query<PgJobRow & { previous: JobStatus }>(RETRY[clearing.type], values);
  const changed = rows[0];
  if (changed) return { outcome: 'changed', job: pgRowToJob(changed), previous: changed.previous };
  const row = await current(pool, id);
  if (!row) return { outcome: 'not-found' };
  if (!RETRYABLE_STATUSES.includes(row.status as JobStatus))
    return { outcome: 'conflict', job: pgRowToJob(row) };
  if (clearing.type === 'from') {
    const has = await pool.query<{ found: boolean }>(PG_HAS_STEP, [id, clearing.name]);
    if (!has.rows[0]?.found) throw stepNotFoundError(id, clearing.name);
  }
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
  // Changed by another command between the statement and the read: as the read finds it.
  return { outcome: 'conflict', job: pgRowToJob(row) };
}

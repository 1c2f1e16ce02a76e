import type pg from 'pg';
import type { JsonValue } from '@nudge/core';
import { jobSignalsQuery, signalFromRow, type SignalRow } from '../sql/index.js';
import { pgTransaction } from './pg-transaction.js';
import type { JobStep, JobStepsRead, StepStatus, StepType } from '../step-types.js';

/** A `nudge_job_steps` row as node-postgres returns it (jsonb parsed, times as `Date`s). */
interface PgStepRow {
  name: string;
  type: StepType;
  status: StepStatus;
  attempt: number;
  result: JsonValue | null;
  error: string | null;
  started_at: Date;
  ended_at: Date | null;
  wake_at: Date | null;
}

const STEPS = `
SELECT name, type, status, attempt, result, error, started_at, ended_at, wake_at
  FROM nudge_job_steps WHERE job_id = $1 ORDER BY position`;

/** A step row as {@link JobStep}. */
function toStep(row: PgStepRow): JobStep {
  return {
    name: row.name,
    type: row.type,
    status: row.status,
    attempt: row.attempt,
    result: row.result,
    error: row.error,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    wakeAt: row.wake_at,
  };
}

/**
 * A job's steps and signals; see {@link Store.jobSteps}. Both are read in one `REPEATABLE READ`
 * snapshot, so a signal that released a wait is never seen without the wait's row, or the reverse.
 */
export function pgJobSteps(pool: pg.Pool, jobId: number): Promise<JobStepsRead> {
  const signals = jobSignalsQuery('postgres', jobId);
  return pgTransaction(
    pool,
    async (client) => {
      const steps = await client.query<PgStepRow>(STEPS, [jobId]);
      const sent = await client.query<SignalRow>(signals.sql, [...signals.params]);
      return { steps: steps.rows.map(toStep), signals: sent.rows.map(signalFromRow) };
    },
    'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
  );
}

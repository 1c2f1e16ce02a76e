import type Database from 'better-sqlite3';
import type { JsonValue } from '@nudge/core';
import { jobSignalsQuery, signalFromRow, type SignalRow } from '../sql/index.js';
import type { JobStep, JobStepsRead, StepStatus, StepType } from '../step-types.js';

/** A `nudge_job_steps` row as better-sqlite3 returns it (JSON and times as text). */
interface SqliteStepRow {
  name: string;
  type: StepType;
  status: StepStatus;
  attempt: number;
  result: string | null;
  error: string | null;
  started_at: string;
  ended_at: string | null;
  wake_at: string | null;
}

const STEPS = `
SELECT name, type, status, attempt, result, error, started_at, ended_at, wake_at
  FROM nudge_job_steps WHERE job_id = ? ORDER BY position`;

const date = (text: string | null): Date | null => (text === null ? null : new Date(text));

/** A step row as {@link JobStep}. */
function toStep(row: SqliteStepRow): JobStep {
  return {
    name: row.name,
    type: row.type,
    status: row.status,
    attempt: row.attempt,
    result: row.result === null ? null : (JSON.parse(row.result) as JsonValue),
    error: row.error,
    startedAt: new Date(row.started_at),
    endedAt: date(row.ended_at),
    wakeAt: date(row.wake_at),
  };
}

/**
 * The step reader of a SQLite store; see {@link Store.jobSteps}. Steps and signals are read in
 * one (deferred, read-only) transaction, so both come from one snapshot of the file.
 */
export function createSqliteJobSteps(db: Database.Database): (jobId: number) => JobStepsRead {
  const steps = db.prepare<[number], SqliteStepRow>(STEPS);
  const signals = db.prepare<[number], SignalRow>(jobSignalsQuery('sqlite', 0).sql);
  return db.transaction((jobId: number): JobStepsRead => ({
    steps: steps.all(jobId).map(toStep),
    signals: signals.all(jobId).map(signalFromRow),
  }));
}

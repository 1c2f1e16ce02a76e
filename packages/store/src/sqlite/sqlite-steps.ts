import type Database from 'better-sqlite3';
import type { StepRecordInput, SuspendInput, SuspendOutcome } from '../store.js';
import { toSqliteTime } from './sqlite-row.js';
import { SQLITE_NOW, sqliteNowMinus, sqliteNowPlus } from './sqlite-time.js';

/** The deadline of a signal wait without one: the latest time `run_at` holds. */
const NO_DEADLINE = '9999-12-31T23:59:59.999Z';

// Invariant: a step row is written only while the attempt holds its lease (the job RUNNING
// under that version); the job is marked has_steps so that its next claim reads its steps.
const HOLD = `
UPDATE nudge_jobs SET has_steps = 1
 WHERE id = @id AND version = @version AND status = 'RUNNING'`;

const RECORD_STEP = `
INSERT INTO nudge_job_steps (job_id, name, position, type, status, attempt, result, error, started_at, ended_at)
VALUES (@id, @name,
        coalesce((SELECT max(position) FROM nudge_job_steps WHERE job_id = @id), 0) + 1,
        @type, @status, @attempt, @result, @error, ${sqliteNowMinus('@durationMs')}, ${SQLITE_NOW})
ON CONFLICT (job_id, name) DO UPDATE
   SET type = excluded.type, status = excluded.status, attempt = excluded.attempt,
       result = excluded.result, error = excluded.error,
       started_at = excluded.started_at, ended_at = excluded.ended_at`;

// A sleep or a wait already recorded keeps its wake-up time or deadline.
const WRITE_WAIT_STEP = `
INSERT INTO nudge_job_steps (job_id, name, position, type, status, attempt, started_at, wake_at)
VALUES (@id, @name,
        coalesce((SELECT max(position) FROM nudge_job_steps WHERE job_id = @id), 0) + 1,
        @type, @status, @attempt, ${SQLITE_NOW},
        CASE WHEN @until IS NOT NULL THEN @until
             WHEN @delayMs IS NOT NULL THEN ${sqliteNowPlus('@delayMs')} END)
ON CONFLICT (job_id, name) DO NOTHING`;

const WAKE_AT = `(SELECT wake_at FROM nudge_job_steps WHERE job_id = @id AND name = @name)`;
const SENT = `EXISTS (SELECT 1 FROM nudge_job_signals WHERE job_id = @id AND name = @name)`;

// Uncharged, as a release: the attempt goes back, the version moves on (fencing the suspended
// attempt out), the lease is cleared. SQLite runs one writer at a time, so the signals read here
// are every signal committed before this transaction, and a later signal sees the WAITING row.
const SUSPEND_SLEEP = `
UPDATE nudge_jobs
   SET status = CASE WHEN ${WAKE_AT} > ${SQLITE_NOW} THEN 'SCHEDULED' ELSE 'PENDING' END,
       run_at = ${WAKE_AT}, version = version + 1, attempts = max(attempts - 1, 0),
       lease_expires_at = NULL, has_steps = 1, progress = coalesce(@progress, progress)
 WHERE id = @id AND version = @version AND status = 'RUNNING'
RETURNING id, version - 1 AS version, status`;

const SUSPEND_SIGNAL = `
UPDATE nudge_jobs
   SET status = CASE WHEN ${SENT} THEN 'PENDING' ELSE 'WAITING' END,
       wait_signal = CASE WHEN ${SENT} THEN NULL ELSE @name END,
       run_at = CASE WHEN ${SENT} THEN ${SQLITE_NOW} ELSE coalesce(${WAKE_AT}, '${NO_DEADLINE}') END,
       version = version + 1, attempts = max(attempts - 1, 0), lease_expires_at = NULL,
       has_steps = 1, progress = coalesce(@progress, progress)
 WHERE id = @id AND version = @version AND status = 'RUNNING'
RETURNING id, version - 1 AS version, status`;

/** Prepares the SQLite step write; see {@link Store.recordStep}. */
export function createSqliteRecordStep(
  db: Database.Database,
): (input: StepRecordInput, now?: Date) => boolean {
  const hold = db.prepare(HOLD);
  const record = db.prepare(RECORD_STEP);
  const write = db.transaction((input: StepRecordInput, now: string | null): boolean => {
    if (hold.run({ id: input.id, version: input.version }).changes !== 1) return false;
    record.run({
      id: input.id,
      name: input.name,
      type: input.type,
      status: input.status,
      attempt: input.attempt,
      result: input.resultJson ?? null,
      error: input.error ?? null,
      durationMs: Math.max(0, input.durationMs),
      now,
    });
    return true;
  });
  return (input, now) => write.immediate(input, toSqliteTime(now));
}

/** Prepares the SQLite suspend of an attempt; see {@link Store.suspend}. */
export function createSqliteSuspend(
  db: Database.Database,
): (input: SuspendInput, now?: Date) => SuspendOutcome | undefined {
  const held = db.prepare(`SELECT 1 FROM nudge_jobs WHERE id = ? AND version = ? AND status = 'RUNNING'`);
  const step = db.prepare(WRITE_WAIT_STEP);
  const sleep = db.prepare(SUSPEND_SLEEP);
  const signal = db.prepare(SUSPEND_SIGNAL);
  const suspend = db.transaction((input: SuspendInput, now: string | null): SuspendOutcome | undefined => {
    const { id, version, name, wait } = input;
    if (held.get(id, version) === undefined) return undefined;
    const sleeping = wait.type === 'sleep';
    step.run({
      id,
      name,
      type: wait.type,
      status: sleeping ? 'SLEEPING' : 'WAITING',
      attempt: input.attempt,
      until: sleeping && 'until' in wait ? wait.until.toISOString() : null,
      delayMs: sleeping ? ('delayMs' in wait ? wait.delayMs : null) : (wait.timeoutMs ?? null),
      now,
    });
    const params = { id, version, name, now, progress: input.progressJson ?? null };
    return (sleeping ? sleep : signal).get(params) as SuspendOutcome | undefined;
  });
  return (input, now) => suspend.immediate(input, toSqliteTime(now));
}

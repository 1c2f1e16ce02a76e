import type pg from 'pg';
import type { StepRecordInput, SuspendInput, SuspendOutcome } from '../store.js';
import { pgMs, pgNow } from './pg-row.js';
import { pgTransaction } from './pg-transaction.js';

// Invariant: a step row is written only while the attempt holds its lease (the job RUNNING
// under that version), in the statement that checks it; the job is marked has_steps so that its
// next claim reads its steps.
const RECORD_STEP = `
WITH held AS (
  UPDATE nudge_jobs SET has_steps = true
   WHERE id = $1 AND version = $2 AND status = 'RUNNING'
  RETURNING id
)
INSERT INTO nudge_job_steps AS s (job_id, name, position, type, status, attempt, result, error, started_at, ended_at)
SELECT id, $3,
       coalesce((SELECT max(position) FROM nudge_job_steps WHERE job_id = $1), 0) + 1,
       $4, $5, $6, $7::jsonb, $8, ${pgNow('$10')} - ${pgMs('$9')}, ${pgNow('$10')}
  FROM held
ON CONFLICT (job_id, name) DO UPDATE
   SET type = excluded.type, status = excluded.status, attempt = excluded.attempt,
       result = excluded.result, error = excluded.error,
       started_at = excluded.started_at, ended_at = excluded.ended_at
RETURNING 1`;

/** The PostgreSQL step write; see {@link Store.recordStep}. */
export async function pgRecordStep(pool: pg.Pool, input: StepRecordInput, now?: Date): Promise<boolean> {
  const { rowCount } = await pool.query({
    name: 'nudge_record_step',
    text: RECORD_STEP,
    values: [
      input.id,
      input.version,
      input.name,
      input.type,
      input.status,
      input.attempt,
      input.resultJson ?? null,
      input.error ?? null,
      Math.max(0, input.durationMs),
      now ?? null,
    ],
  });
  return rowCount === 1;
}

// The lock comes first, in a statement of its own: a signal's insert locks the same row before
// it reads whether the job waits for it, and each later statement here reads a snapshot taken
// after the lock, so the signal is either seen below or sees the WAITING row.
const LOCK = `SELECT 1 FROM nudge_jobs WHERE id = $1 AND version = $2 AND status = 'RUNNING' FOR UPDATE`;

// A sleep or a wait already recorded keeps its wake-up time or deadline.
const WRITE_WAIT_STEP = `
INSERT INTO nudge_job_steps (job_id, name, position, type, status, attempt, started_at, wake_at)
VALUES ($1, $2,
        coalesce((SELECT max(position) FROM nudge_job_steps WHERE job_id = $1), 0) + 1,
        $3, $4, $5, ${pgNow('$8')},
        CASE WHEN $6::timestamptz IS NOT NULL THEN $6::timestamptz
             WHEN $7::double precision IS NOT NULL THEN ${pgNow('$8')} + ${pgMs('$7')} END)
ON CONFLICT (job_id, name) DO NOTHING`;

// Uncharged, as a release: the attempt goes back, the version moves on (fencing the suspended
// attempt out), the lease is cleared.
const SUSPEND_SLEEP = `
UPDATE nudge_jobs AS j
   SET status = CASE WHEN s.wake_at > ${pgNow('$4')} THEN 'SCHEDULED' ELSE 'PENDING' END,
       run_at = s.wake_at, version = j.version + 1,
       attempts = greatest(j.attempts - 1, 0), lease_expires_at = NULL, has_steps = true,
       progress = coalesce($5::jsonb, j.progress)
  FROM nudge_job_steps AS s
 WHERE j.id = $1 AND j.version = $2 AND j.status = 'RUNNING' AND s.job_id = j.id AND s.name = $3
RETURNING j.id, j.version - 1 AS version, j.status`;

const SUSPEND_SIGNAL = `
WITH sent AS (
  SELECT EXISTS (SELECT 1 FROM nudge_job_signals WHERE job_id = $1 AND name = $3) AS yes
)
UPDATE nudge_jobs AS j
   SET status = CASE WHEN (SELECT yes FROM sent) THEN 'PENDING' ELSE 'WAITING' END,
       wait_signal = CASE WHEN (SELECT yes FROM sent) THEN NULL ELSE $3 END,
       run_at = CASE WHEN (SELECT yes FROM sent) THEN ${pgNow('$4')} ELSE coalesce(s.wake_at, 'infinity') END,
       version = j.version + 1, attempts = greatest(j.attempts - 1, 0), lease_expires_at = NULL,
       has_steps = true, progress = coalesce($5::jsonb, j.progress)
  FROM nudge_job_steps AS s
 WHERE j.id = $1 AND j.version = $2 AND j.status = 'RUNNING' AND s.job_id = j.id AND s.name = $3
RETURNING j.id, j.version - 1 AS version, j.status`;

/** The PostgreSQL suspend of an attempt; see {@link Store.suspend}. */
export async function pgSuspend(
  pool: pg.Pool,
  input: SuspendInput,
  now?: Date,
): Promise<SuspendOutcome | undefined> {
  const { id, version, name, wait } = input;
  return pgTransaction(pool, async (client) => {
    const held = await client.query({ name: 'nudge_suspend_lock', text: LOCK, values: [id, version] });
    if (held.rowCount !== 1) return undefined;
    const sleep = wait.type === 'sleep';
    const until = sleep && 'until' in wait ? wait.until : null;
    const delayMs = sleep ? ('delayMs' in wait ? wait.delayMs : null) : (wait.timeoutMs ?? null);
    await client.query({
      name: 'nudge_suspend_step',
      text: WRITE_WAIT_STEP,
      values: [
        id,
        name,
        wait.type,
        sleep ? 'SLEEPING' : 'WAITING',
        input.attempt,
        until,
        delayMs,
        now ?? null,
      ],
    });
    const { rows } = await client.query<SuspendOutcome>({
      name: sleep ? 'nudge_suspend_sleep' : 'nudge_suspend_signal',
      text: sleep ? SUSPEND_SLEEP : SUSPEND_SIGNAL,
      values: [id, version, name, now ?? null, input.progressJson ?? null],
    });
    return rows[0];
  });
}

import type Database from 'better-sqlite3';
import { CANCELLABLE_STATUSES, RETRYABLE_STATUSES, type JobStatus } from '@nudge/core';
import type { JobCommandResult } from '../store.js';
import { sqliteRowToJob, toSqliteTime, type SqliteJobRow } from './sqlite-row.js';
import { SQLITE_NOW } from './sqlite-time.js';
import { checkRetrySteps, stepNotFoundError, type RetrySteps, type StepClearing } from '../retry-steps.js';
import {
  SQLITE_BLOCKING_DEPENDENCY,
  SQLITE_HAS_STEP,
  SQLITE_RETRY_MARK_DEPENDENCIES,
  sqliteClearStepsSql,
  sqliteRetryEdgesSql,
  sqliteRetrySql,
} from './sqlite-retry-sql.js';

// Invariant: a command reads the status and moves the row in one BEGIN IMMEDIATE transaction, so
// no claim or outcome on any connection interleaves; it moves the row only from a status the
// transition table allows.
const CANCEL = `
UPDATE nudge_jobs
   SET status = 'CANCELLED', version = version + 1, lease_expires_at = NULL, wait_signal = NULL,
       finished_at = ${SQLITE_NOW}
 WHERE id = @id
RETURNING *`;

// A retry also decides against the job's dependencies (see sqliteRetrySql): a job that waits for
// one goes back to WAITING, one that would be cancelled again at once is left as it is. Its steps
// are cleared (sqliteClearStepsSql) in the same transaction, only once the job has changed.
const RETRY = sqliteRetrySql('0');
const RETRY_EDGES = sqliteRetryEdgesSql('0');

/** The cancel and retry commands; see {@link Store.cancelJob} and {@link Store.retryJob}. */
export function createSqliteJobCommands(db: Database.Database): {
  cancel: (id: number, now?: Date) => JobCommandResult;
  retry: (id: number, now?: Date, steps?: RetrySteps) => JobCommandResult;
} {
  const read = db.prepare<[number], SqliteJobRow>('SELECT * FROM nudge_jobs WHERE id = ?');
  const cancelJob = db.prepare<{ id: number; now: string | null }, SqliteJobRow>(CANCEL);
  const cancel = db.transaction((id: number, now: Date | undefined): JobCommandResult => {
    const current = read.get(id);
    if (!current) return { outcome: 'not-found' };
    const previous = current.status as JobStatus;
    if (!CANCELLABLE_STATUSES.includes(previous))
      return { outcome: 'conflict', job: sqliteRowToJob(current) };
    const changed = cancelJob.get({ id, now: toSqliteTime(now) });
    if (!changed) throw new Error(`job ${id} vanished inside its own transaction`);
    return { outcome: 'changed', job: sqliteRowToJob(changed), previous };
  });
  const retryJob = db.prepare<Record<string, unknown>, SqliteJobRow & { has_steps: number }>(RETRY);
  const retryEdges = db.prepare<Record<string, unknown>>(RETRY_EDGES);
  const markDependencies = db.prepare<Record<string, unknown>>(SQLITE_RETRY_MARK_DEPENDENCIES);
  const blocking = db.prepare<{ id: number }, { id: number; status: 'FAILED' | 'CANCELLED' | null }>(
    SQLITE_BLOCKING_DEPENDENCY,
  );
  const hasStep = db.prepare<{ id: number; name: string }, { found: number }>(SQLITE_HAS_STEP);
  const clearAll = db.prepare<Record<string, unknown>>(sqliteClearStepsSql({ type: 'all' }) ?? '');
  const clearFrom = db.prepare<Record<string, unknown>>(
    sqliteClearStepsSql({ type: 'from', name: '' }) ?? '',
  );
  const retry = db.transaction(
    (id: number, now: Date | undefined, clearing: StepClearing): JobCommandResult => {
      const current = read.get(id);
      if (!current) return { outcome: 'not-found' };
      const previous = current.status as JobStatus;
      if (!RETRYABLE_STATUSES.includes(previous))
        return { outcome: 'conflict', job: sqliteRowToJob(current) };
      if (clearing.type === 'from' && hasStep.get({ id, name: clearing.name })?.found !== 1)
        throw stepNotFoundError(id, clearing.name);
      const ids = JSON.stringify([id]);
      const changed = retryJob.get({ ids, status: previous, now: toSqliteTime(now) });
      if (!changed) {
        const dependency = blocking.get({ id });
        if (!dependency) throw new Error(`job ${id} was neither retried nor blocked by a dependency`);
        return { outcome: 'blocked', job: sqliteRowToJob(current), dependency };
      }
      if (changed.status === 'WAITING') {
        retryEdges.run({ ids });
        markDependencies.run({ ids });
      }
      if (changed.has_steps === 1) {
        if (clearing.type === 'all') clearAll.run({ ids });
        else if (clearing.type === 'from') clearFrom.run({ ids, from_step: clearing.name });
      }
      return { outcome: 'changed', job: sqliteRowToJob(changed), previous };
    },
  );
  return {
    cancel: (id, now) => cancel.immediate(id, now),
    retry: (id, now, steps) => retry.immediate(id, now, checkRetrySteps(steps)),
  };
}

import type Database from 'better-sqlite3';
import { CANCELLABLE_STATUSES, RETRYABLE_STATUSES, type JobStatus } from '@nudge/core';
import type { JobCommandResult } from '../store.js';
import { sqliteRowToJob, toSqliteTime, type SqliteJobRow } from './sqlite-row.js';
import { SQLITE_NOW } from './sqlite-time.js';

// Invariant: a command reads the status and moves the row in one BEGIN IMMEDIATE transaction, so
// no claim or outcome on any connection interleaves; it moves the row only from a status the
// transition table allows.
const CANCEL = `
UPDATE nudge_jobs
   SET status = 'CANCELLED', version = version + 1, lease_expires_at = NULL, finished_at = ${SQLITE_NOW}
 WHERE id = @id
RETURNING *`;

const RETRY = `
UPDATE nudge_jobs
   SET status = 'PENDING', version = version + 1, attempts = 0, run_at = ${SQLITE_NOW},
       lease_expires_at = NULL, started_at = NULL, finished_at = NULL, result = NULL, progress = NULL
 WHERE id = @id
RETURNING *`;

/** The cancel and retry commands; see {@link Store.cancelJob} and {@link Store.retryJob}. */
export function createSqliteJobCommands(db: Database.Database): {
  cancel: (id: number, now?: Date) => JobCommandResult;
  retry: (id: number, now?: Date) => JobCommandResult;
} {
  const read = db.prepare<[number], SqliteJobRow>('SELECT * FROM nudge_jobs WHERE id = ?');
  const command = (text: string, from: readonly JobStatus[]) => {
    const update = db.prepare<{ id: number; now: string | null }, SqliteJobRow>(text);
    const run = db.transaction((id: number, now: Date | undefined): JobCommandResult => {
      const current = read.get(id);
      if (!current) return { outcome: 'not-found' };
      const previous = current.status as JobStatus;
      if (!from.includes(previous)) return { outcome: 'conflict', job: sqliteRowToJob(current) };
      const changed = update.get({ id, now: toSqliteTime(now) });
      if (!changed) throw new Error(`job ${id} vanished inside its own transaction`);
      return { outcome: 'changed', job: sqliteRowToJob(changed), previous };
    });
    return (id: number, now?: Date) => run.immediate(id, now);
  };
  return { cancel: command(CANCEL, CANCELLABLE_STATUSES), retry: command(RETRY, RETRYABLE_STATUSES) };
}

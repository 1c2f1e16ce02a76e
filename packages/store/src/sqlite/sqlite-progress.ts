import type Database from 'better-sqlite3';
import type { JobLease, ProgressInput } from '../store.js';

// Invariant: only the current attempt (same id and version, still RUNNING) records progress.
const SET_PROGRESS = `
UPDATE nudge_jobs SET progress = @progress
 WHERE id = @id AND version = @version AND status = 'RUNNING'`;

/** Prepares the SQLite progress write, one transaction per batch; see {@link Store.setProgress}. */
export function createSqliteProgress(db: Database.Database): (items: readonly ProgressInput[]) => JobLease[] {
  const statement = db.prepare(SET_PROGRESS);
  const write = db.transaction((items: readonly ProgressInput[]) => {
    const written: JobLease[] = [];
    for (const { id, version, progressJson } of items) {
      if (statement.run({ id, version, progress: progressJson }).changes === 1) written.push({ id, version });
    }
    return written;
  });
  return (items) => (items.length === 0 ? [] : write.immediate(items));
}

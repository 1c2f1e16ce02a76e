import type Database from 'better-sqlite3';
import type { CompleteInput, JobLease } from '../store.js';
import { toSqliteTime } from './sqlite-row.js';
import { SQLITE_NOW } from './sqlite-time.js';

// Invariant: only the current attempt (same id and version, still RUNNING) records a success.
const COMPLETE = `
UPDATE nudge_jobs
   SET status = 'SUCCEEDED', result = @result, finished_at = ${SQLITE_NOW}, lease_expires_at = NULL
 WHERE id = @id AND version = @version AND status = 'RUNNING'`;

/** Prepares the SQLite completion; see {@link Store.complete}. */
export function createSqliteComplete(
  db: Database.Database,
): (items: readonly CompleteInput[], now?: Date) => JobLease[] {
  const statement = db.prepare(COMPLETE);
  const complete = db.transaction((items: readonly CompleteInput[], now: string | null) => {
    const written: JobLease[] = [];
    for (const item of items) {
      const params = { id: item.id, version: item.version, result: item.resultJson, now };
      if (statement.run(params).changes === 1) written.push({ id: item.id, version: item.version });
    }
    return written;
  });
  return (items, now) => (items.length === 0 ? [] : complete.immediate(items, toSqliteTime(now)));
}

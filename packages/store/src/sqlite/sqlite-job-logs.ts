import type Database from 'better-sqlite3';
import { fitJobLogAppend } from '../log-fit.js';
import type {
  JobLogAppend,
  JobLogAppended,
  JobLogCaps,
  JobLogPage,
  JobLogQuery,
  StoredJobLogLine,
} from '../log-types.js';

// Invariant: lines are counted and written only for an attempt whose job still has its version;
// SQLite runs one writer at a time, so the counts read here are the latest until the commit.
const READ_HELD = `
SELECT coalesce(c.lines, 0) AS lines, coalesce(c.bytes, 0) AS bytes, coalesce(c.dropped, 0) AS dropped
  FROM nudge_jobs AS j LEFT JOIN nudge_job_log_counts AS c ON c.job_id = j.id
 WHERE j.id = @id AND j.version = @version`;

const INSERT_LINE = `
INSERT INTO nudge_job_logs (job_id, seq, attempt, level, message, fields)
VALUES (@id, @seq, @attempt, @level, @message, @fields)`;

const MOVE_COUNTS = `
INSERT INTO nudge_job_log_counts (job_id, lines, bytes, dropped) VALUES (@id, @lines, @bytes, @dropped)
ON CONFLICT (job_id) DO UPDATE
   SET lines = lines + excluded.lines, bytes = bytes + excluded.bytes, dropped = dropped + excluded.dropped`;

interface CountsRow {
  lines: number;
  bytes: number;
  dropped: number;
}

/**
 * Prepares the SQLite log append: one `IMMEDIATE` transaction per part of a batch (the caller's);
 * see {@link Store.appendJobLogs}.
 */
export function createSqliteAppendJobLogs(
  db: Database.Database,
): (appends: readonly JobLogAppend[], caps: JobLogCaps) => JobLogAppended[] {
  const held = db.prepare<{ id: number; version: number }, CountsRow>(READ_HELD);
  const insert = db.prepare(INSERT_LINE);
  const move = db.prepare(MOVE_COUNTS);
  const write = db.transaction((appends: readonly JobLogAppend[], caps: JobLogCaps) => {
    const appended: JobLogAppended[] = [];
    for (const append of appends) {
      const counts = held.get({ id: append.id, version: append.version });
      if (!counts) continue;
      const fit = fitJobLogAppend(append, counts, caps);
      for (let i = 0; i < fit.kept; i += 1) {
        const line = append.lines[i];
        if (!line) break;
        insert.run({
          id: append.id,
          seq: counts.lines + i + 1,
          attempt: append.attempt,
          level: line.level,
          message: line.message,
          fields: line.fieldsJson,
        });
      }
      move.run({ id: append.id, lines: fit.kept, bytes: fit.keptBytes, dropped: fit.dropped });
      appended.push({ id: append.id, version: append.version, stored: fit.kept, dropped: fit.dropped });
    }
    return appended;
  });
  return (appends, caps) => (appends.length === 0 ? [] : write.immediate(appends, caps));
}

const READ_COUNTS = `
SELECT c.lines, c.bytes, c.dropped, EXISTS (SELECT 1 FROM nudge_jobs WHERE id = @id) AS job
  FROM (SELECT 1) AS one LEFT JOIN nudge_job_log_counts AS c ON c.job_id = @id`;

const READ_PAGE = `
SELECT seq, attempt, level, message, fields, at
  FROM nudge_job_logs WHERE job_id = @id AND seq > @after ORDER BY seq LIMIT @limit`;

/** Prepares the SQLite read of a page of a job's log (one transaction: counts and page agree). */
export function createSqliteReadJobLogs(
  db: Database.Database,
): (query: JobLogQuery) => JobLogPage | undefined {
  const counts = db.prepare<
    { id: number },
    { lines: number | null; bytes: number | null; dropped: number | null; job: number }
  >(READ_COUNTS);
  const page = db.prepare<
    { id: number; after: number; limit: number },
    {
      seq: number;
      attempt: number;
      level: StoredJobLogLine['level'];
      message: string;
      fields: string | null;
      at: string;
    }
  >(READ_PAGE);
  return db.transaction((query: JobLogQuery): JobLogPage | undefined => {
    const row = counts.get({ id: query.jobId });
    if (!row?.job) return undefined;
    const lines = page.all({ id: query.jobId, after: query.after, limit: query.limit });
    return {
      lines: lines.map((r) => ({
        seq: r.seq,
        attempt: r.attempt,
        level: r.level,
        message: r.message,
        fieldsJson: r.fields,
        at: new Date(r.at),
      })),
      storedLines: row.lines ?? 0,
      storedBytes: row.bytes ?? 0,
      dropped: row.dropped ?? 0,
    };
  });
}

import type pg from 'pg';
import { fitJobLogAppend, type JobLogFit } from '../log-fit.js';
import type {
  JobLogAppend,
  JobLogAppended,
  JobLogCaps,
  JobLogPage,
  JobLogQuery,
  StoredJobLogLine,
} from '../log-types.js';
import { pgTransaction } from './pg-transaction.js';

// Invariant: a job's counters row is locked (the upsert's update takes the row lock and reads
// its latest committed values, whatever the snapshot) before any line of the job is counted,
// and only for an attempt whose job still has its version; rows are locked in id order, so two
// appends never deadlock. The jobs table is only read.
const LOCK_COUNTS = `
INSERT INTO nudge_job_log_counts AS c (job_id)
SELECT j.id
  FROM unnest($1::bigint[], $2::integer[]) AS a(id, version)
  JOIN nudge_jobs AS j ON j.id = a.id AND j.version = a.version
 ORDER BY j.id
ON CONFLICT (job_id) DO UPDATE SET job_id = c.job_id
RETURNING c.job_id AS id, c.lines, c.bytes, c.dropped`;

// The kept lines of every job of the batch, and the counters moved, in one statement.
const WRITE_LINES = `
WITH written AS (
  INSERT INTO nudge_job_logs (job_id, seq, attempt, level, message, fields)
  -- Fields travel as text[]: parsing a jsonb[] literal costs PostgreSQL about twice as much.
  SELECT job_id, seq, attempt, level, message, fields::jsonb
    FROM unnest($1::bigint[], $2::integer[], $3::integer[], $4::text[], $5::text[], $6::text[])
         AS l(job_id, seq, attempt, level, message, fields)
)
UPDATE nudge_job_log_counts AS c
   SET lines = c.lines + u.lines, bytes = c.bytes + u.bytes, dropped = c.dropped + u.dropped
  FROM unnest($7::bigint[], $8::integer[], $9::bigint[], $10::bigint[]) AS u(job_id, lines, bytes, dropped)
 WHERE c.job_id = u.job_id`;

interface CountsRow {
  id: string | number;
  lines: number;
  bytes: string | number;
  dropped: string | number;
}

/**
 * The PostgreSQL log append of a part of a batch, in one transaction: the counters locked, the
 * kept lines inserted and the counters moved in one statement; see {@link Store.appendJobLogs}.
 * @returns what was stored and dropped, for each append whose job still had its version
 */
export async function pgAppendJobLogs(
  pool: pg.Pool,
  appends: readonly JobLogAppend[],
  caps: JobLogCaps,
): Promise<JobLogAppended[]> {
  return pgTransaction(pool, async (client) => {
    const { rows } = await client.query<CountsRow>({
      name: 'nudge_lock_log_counts',
      text: LOCK_COUNTS,
      values: [appends.map((a) => a.id), appends.map((a) => a.version)],
    });
    const counts = new Map(
      rows.map((r) => [Number(r.id), { lines: r.lines, bytes: Number(r.bytes), dropped: Number(r.dropped) }]),
    );
    const lines: unknown[][] = [[], [], [], [], [], []];
    const moved: unknown[][] = [[], [], [], []];
    const appended: JobLogAppended[] = [];
    // Appends of one job in one batch follow each other: the counts move as each is fitted.
    for (const append of appends) {
      const current = counts.get(append.id);
      if (current === undefined) continue;
      const fit: JobLogFit = fitJobLogAppend(append, current, caps);
      for (let i = 0; i < fit.kept; i += 1) {
        const line = append.lines[i];
        if (!line) break;
        lines[0]?.push(append.id);
        lines[1]?.push(current.lines + i + 1);
        lines[2]?.push(append.attempt);
        lines[3]?.push(line.level);
        lines[4]?.push(line.message);
        lines[5]?.push(line.fieldsJson);
      }
      moved[0]?.push(append.id);
      moved[1]?.push(fit.kept);
      moved[2]?.push(fit.keptBytes);
      moved[3]?.push(fit.dropped);
      counts.set(append.id, {
        lines: current.lines + fit.kept,
        bytes: current.bytes + fit.keptBytes,
        dropped: current.dropped + fit.dropped,
      });
      appended.push({ id: append.id, version: append.version, stored: fit.kept, dropped: fit.dropped });
    }
    if (appended.length > 0) {
      await client.query({ name: 'nudge_write_log_lines', text: WRITE_LINES, values: [...lines, ...moved] });
    }
    return appended;
  });
}

// One snapshot: the counts and the page agree.
const READ_COUNTS = `
SELECT c.lines, c.bytes, c.dropped, EXISTS (SELECT 1 FROM nudge_jobs WHERE id = $1) AS job
  FROM (SELECT 1) AS one LEFT JOIN nudge_job_log_counts AS c ON c.job_id = $1`;

const READ_PAGE = `
SELECT seq, attempt, level, message, fields::text AS fields, at
  FROM nudge_job_logs WHERE job_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`;

/** The PostgreSQL read of a page of a job's log; see {@link Store.readJobLogs}. */
export async function pgReadJobLogs(pool: pg.Pool, query: JobLogQuery): Promise<JobLogPage | undefined> {
  return pgTransaction(
    pool,
    async (client) => {
      const { rows } = await client.query<{
        lines: number | null;
        bytes: string | null;
        dropped: string | null;
        job: boolean;
      }>({ name: 'nudge_read_log_counts', text: READ_COUNTS, values: [query.jobId] });
      const counts = rows[0];
      if (!counts?.job) return undefined;
      const page = await client.query<{
        seq: number;
        attempt: number;
        level: StoredJobLogLine['level'];
        message: string;
        fields: string | null;
        at: Date;
      }>({ name: 'nudge_read_log_page', text: READ_PAGE, values: [query.jobId, query.after, query.limit] });
      return {
        lines: page.rows.map((r) => ({
          seq: r.seq,
          attempt: r.attempt,
          level: r.level,
          message: r.message,
          fieldsJson: r.fields,
          at: r.at,
        })),
        storedLines: counts.lines ?? 0,
        storedBytes: Number(counts.bytes ?? 0),
        dropped: Number(counts.dropped ?? 0),
      };
    },
    'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
  );
}

import type pg from 'pg';
import type { BulkCommandResult, RetryJobsFilter } from '../bulk-command-types.js';
import { checkRetryFilter } from '../bulk-filter-check.js';
import { runBulkPages } from '../bulk-pages.js';
import { pgNow } from './pg-row.js';

/** Where the next page starts: after this (kind, finished_at, id) of the finished index. */
interface RetryCursor {
  readonly kind: string;
  /** `finished_at` as PostgreSQL prints it, so it reads back to the microsecond. */
  readonly finishedAt: string;
  readonly id: number;
}

// '' sorts before every kind (kinds are never empty).
const START: RetryCursor = { kind: '', finishedAt: '-infinity', id: 0 };

/**
 * One page of a bulk retry. $1 status, $2 cutoff, $3..$5 the cursor, $6 page size, $7 now (NULL:
 * the database clock); filters follow. A keyset walk of the finished index (status, kind,
 * finished_at): each page starts after the last row of the one before, so no row is read twice.
 * Only rows finished by the cutoff (when the command started) match, so a job this command
 * retried that fails again (finished later) is not retried again. FOR UPDATE locks each row and,
 * when another write changed it first, checks the filter again on the new row: a row a
 * concurrent command already moved is left out, as the single retry would refuse it.
 */
export function pgRetryPageSql(filters: readonly string[]): string {
  return `
WITH page AS MATERIALIZED (
  SELECT id, kind, finished_at FROM nudge_jobs
   WHERE status = $1 AND finished_at IS NOT NULL AND finished_at <= $2::timestamptz
     AND (kind, finished_at) >= ($3::text, $4::timestamptz)
     AND (kind, finished_at, id) > ($3::text, $4::timestamptz, $5::bigint)${filters.map((f) => `\n     AND ${f}`).join('')}
   ORDER BY kind, finished_at, id
   LIMIT $6
   FOR UPDATE),
changed AS (
  UPDATE nudge_jobs AS j
     SET status = 'PENDING', version = j.version + 1, attempts = 0, run_at = ${pgNow('$7')},
         lease_expires_at = NULL, started_at = NULL, finished_at = NULL, result = NULL, progress = NULL
    FROM page AS p
   WHERE j.id = p.id
  RETURNING j.id, j.kind, j.queue, j.version, j.claimed_by, p.finished_at)
SELECT id, kind, queue, version, claimed_by, finished_at::text AS cursor_at
  FROM changed ORDER BY kind, finished_at, id`;
}

function retryFilters(filter: RetryJobsFilter): { sql: string[]; values: unknown[] } {
  const sql: string[] = [];
  const values: unknown[] = [];
  const add = (condition: (param: string) => string, value: unknown) => {
    values.push(value);
    sql.push(condition(`$${7 + values.length}`));
  };
  if (filter.kind !== undefined) add((p) => `kind = ${p}::text`, filter.kind);
  if (filter.queue !== undefined) add((p) => `queue = ${p}::text`, filter.queue);
  if (filter.finishedAfter) add((p) => `finished_at >= ${p}::timestamptz`, filter.finishedAfter);
  if (filter.finishedBefore) add((p) => `finished_at < ${p}::timestamptz`, filter.finishedBefore);
  return { sql, values };
}

/** See {@link Store.retryJobs}. */
export async function pgRetryJobs(
  pool: pg.Pool,
  filter: RetryJobsFilter,
  now?: Date,
): Promise<BulkCommandResult> {
  checkRetryFilter(filter);
  const { rows } = await pool.query<{ cutoff: string }>(`SELECT ${pgNow('$1')}::text AS cutoff`, [
    now ?? null,
  ]);
  const cutoff = rows[0]?.cutoff;
  const filters = retryFilters(filter);
  const text = pgRetryPageSql(filters.sql);
  return runBulkPages(START, filter.limit, async (cursor, size) => {
    const page = await pool.query<{
      id: number;
      kind: string;
      queue: string;
      version: number;
      claimed_by: string | null;
      cursor_at: string;
    }>(text, [
      filter.status,
      cutoff,
      cursor.kind,
      cursor.finishedAt,
      cursor.id,
      size,
      now ?? null,
      ...filters.values,
    ]);
    const last = page.rows.at(-1);
    return {
      rows: page.rows.map((row) => ({
        id: Number(row.id),
        kind: row.kind,
        queue: row.queue,
        previous: filter.status,
        version: row.version,
        claimedBy: row.claimed_by,
      })),
      next: last ? { kind: last.kind, finishedAt: last.cursor_at, id: Number(last.id) } : cursor,
    };
  });
}

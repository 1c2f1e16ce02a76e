import type pg from 'pg';
import type { JobStatus } from '@nudge/core';
import type { BulkCommandResult, CancelJobsFilter } from '../bulk-command-types.js';
import { checkCancelFilter } from '../bulk-filter-check.js';
import { runBulkPages } from '../bulk-pages.js';
import { pgNow } from './pg-row.js';

/**
 * One page of a bulk cancel. $1 statuses, $2 the highest id when the command started, $3 the
 * cursor (the last id of the page before), $4 page size, $5 now (NULL: the database clock);
 * filters follow. A keyset walk of the unfinished index by id: each page starts after the last
 * id of the one before, so no row is read twice, and jobs created after the command started are
 * left alone. FOR UPDATE locks each row and, when another write changed it first (a job that
 * finished meanwhile), checks the filter again on the new row, leaving it out: the guard of the
 * single cancel. The cancel bumps `version` and clears the lease, so a running attempt's late
 * outcome changes nothing and its heartbeat finds the lease gone. The update finds the page's
 * rows by primary key, from one array (a join of the page to the table may flip to a scan of the
 * whole table).
 */
export function pgCancelPageSql(filters: readonly string[]): string {
  return `
WITH page AS MATERIALIZED (
  SELECT id, status AS previous FROM nudge_jobs
   WHERE finished_at IS NULL AND id > $3::bigint AND id <= $2::bigint
     AND status = ANY($1::text[])${filters.map((f) => `\n     AND ${f}`).join('')}
   ORDER BY id
   LIMIT $4
   FOR UPDATE),
changed AS (
  UPDATE nudge_jobs AS j
     SET status = 'CANCELLED', version = j.version + 1, lease_expires_at = NULL,
         finished_at = ${pgNow('$5')}
   WHERE j.id = ANY(ARRAY(SELECT id FROM page))
  RETURNING j.id, j.kind, j.queue, j.version, j.claimed_by)
SELECT c.*, p.previous FROM changed AS c JOIN page AS p ON p.id = c.id ORDER BY c.id`;
}

function cancelFilters(filter: CancelJobsFilter): { sql: string[]; values: unknown[] } {
  const sql: string[] = [];
  const values: unknown[] = [];
  const add = (condition: (param: string) => string, value: unknown) => {
    values.push(value);
    sql.push(condition(`$${5 + values.length}`));
  };
  if (filter.kind !== undefined) add((p) => `kind = ${p}::text`, filter.kind);
  if (filter.queue !== undefined) add((p) => `queue = ${p}::text`, filter.queue);
  if (filter.createdAfter) add((p) => `created_at >= ${p}::timestamptz`, filter.createdAfter);
  if (filter.createdBefore) add((p) => `created_at < ${p}::timestamptz`, filter.createdBefore);
  return { sql, values };
}

/** See {@link Store.cancelJobs}. */
export async function pgCancelJobs(
  pool: pg.Pool,
  filter: CancelJobsFilter,
  now?: Date,
): Promise<BulkCommandResult> {
  const statuses = checkCancelFilter(filter);
  const { rows } = await pool.query<{ last: string | null }>('SELECT max(id)::text AS last FROM nudge_jobs');
  const lastId = Number(rows[0]?.last ?? 0);
  const filters = cancelFilters(filter);
  const text = pgCancelPageSql(filters.sql);
  return runBulkPages(0, filter.limit, async (cursor, size) => {
    const page = await pool.query<{
      id: number;
      kind: string;
      queue: string;
      version: number;
      claimed_by: string | null;
      previous: JobStatus;
    }>(text, [statuses, lastId, cursor, size, now ?? null, ...filters.values]);
    const last = page.rows.at(-1);
    return {
      rows: page.rows.map((row) => ({
        id: Number(row.id),
        kind: row.kind,
        queue: row.queue,
        previous: row.previous,
        version: row.version,
        claimedBy: row.claimed_by,
      })),
      next: last ? Number(last.id) : cursor,
      done: page.rows.length < size,
    };
  });
}

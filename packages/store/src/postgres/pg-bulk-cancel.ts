import type pg from 'pg';
import type { JobStatus } from '@nudge/core';
import type { BulkCommandResult, CancelJobsFilter } from '../bulk-command-types.js';
import { checkCancelFilter } from '../bulk-filter-check.js';
import { bulkFilterSql, cancelConditions, pgFilterBinding } from '../bulk-filters.js';
import { runBulkPages } from '../bulk-pages.js';
import { pgNow } from './pg-row.js';
import { isRowWriteError, type IsolatedWrites } from '../isolated-writes.js';
import { pgNoteIsolated, pgWriteIsolating } from './pg-isolating.js';
import { pgTransaction } from './pg-transaction.js';

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
WITH page AS MATERIALIZED (${pageSelect(filters)}),
changed AS (
  UPDATE nudge_jobs AS j${CANCEL_SET}
   WHERE j.id = ANY(ARRAY(SELECT id FROM page))
  RETURNING j.id, j.kind, j.queue, j.version, j.claimed_by)
SELECT c.*, p.previous FROM changed AS c JOIN page AS p ON p.id = c.id ORDER BY c.id`;
}

function pageSelect(filters: readonly string[]): string {
  return `
  SELECT id, status AS previous FROM nudge_jobs
   WHERE finished_at IS NULL AND id > $3::bigint AND id <= $2::bigint
     AND status = ANY($1::text[])${filters.map((f) => `\n     AND ${f}`).join('')}
   ORDER BY id
   LIMIT $4
   FOR UPDATE`;
}

const CANCEL_SET = `
     SET status = 'CANCELLED', version = j.version + 1, lease_expires_at = NULL, wait_signal = NULL,
         finished_at = ${pgNow('$5')}`;

// A page by parts, after the database refused it: the page's rows (locked), then each part by id.
const CANCEL_IDS = `
UPDATE nudge_jobs AS j${CANCEL_SET.replace('$5', '$2')}
 WHERE j.id = ANY($1::bigint[]) AND j.finished_at IS NULL
RETURNING j.id, j.kind, j.queue, j.version, j.claimed_by`;

interface CancelledRow {
  id: number;
  kind: string;
  queue: string;
  version: number;
  claimed_by: string | null;
  previous: JobStatus;
}

/** See {@link Store.cancelJobs}. */
export async function pgCancelJobs(
  pool: pg.Pool,
  filter: CancelJobsFilter,
  isolated: IsolatedWrites,
  now?: Date,
): Promise<BulkCommandResult> {
  const statuses = checkCancelFilter(filter);
  const { rows } = await pool.query<{ last: string | null }>('SELECT max(id)::text AS last FROM nudge_jobs');
  const lastId = Number(rows[0]?.last ?? 0);
  // The filter's parameters follow the page's five.
  const filters = bulkFilterSql(cancelConditions(filter), pgFilterBinding(6));
  const text = pgCancelPageSql(filters.sql);
  // The page's read alone: $5 (now) is read as a column so the parameters keep their numbers.
  const select = pageSelect(filters.sql).replace(
    'SELECT id, status AS previous',
    'SELECT id, status AS previous, $5::timestamptz AS at',
  );
  /** The page by parts, isolating the rows the database refuses. */
  const byParts = (values: unknown[]) =>
    pgTransaction(pool, async (client) => {
      const { rows } = await client.query<{ id: number; previous: JobStatus }>(select, values);
      const previous = new Map(rows.map((row) => [row.id, row.previous]));
      const written = await pgWriteIsolating(client, 'cancel', rows, async (part) => {
        const result = await client.query<Omit<CancelledRow, 'previous'>>(CANCEL_IDS, [
          part.map((row) => row.id),
          now ?? null,
        ]);
        return result.rows.map((row) => ({ ...row, previous: previous.get(row.id) ?? 'PENDING' }));
      });
      await pgNoteIsolated(client, written.isolated, { inTransaction: true });
      return { changed: written.results.sort((a, b) => a.id - b.id), read: rows, refused: written.isolated };
    });
  return runBulkPages(0, filter.limit, async (cursor, size) => {
    const values = [statuses, lastId, cursor, size, now ?? null, ...filters.values];
    let changed: CancelledRow[];
    let lastRead: number | undefined;
    let read: number;
    let refused = 0;
    try {
      changed = (await pool.query<CancelledRow>(text, values)).rows;
      lastRead = changed.at(-1)?.id;
      read = changed.length;
    } catch (error) {
      if (!isRowWriteError(error)) throw error;
      const parts = await byParts(values);
      isolated.report(parts.refused);
      changed = parts.changed;
      lastRead = parts.read.at(-1)?.id;
      read = parts.read.length;
      refused = parts.refused.length;
    }
    return {
      rows: changed.map((row) => ({
        id: Number(row.id),
        kind: row.kind,
        queue: row.queue,
        previous: row.previous,
        version: row.version,
        claimedBy: row.claimed_by,
      })),
      isolated: refused,
      next: lastRead === undefined ? cursor : Number(lastRead),
      done: read < size,
    };
  });
}

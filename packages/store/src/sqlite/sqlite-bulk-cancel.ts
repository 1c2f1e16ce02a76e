import type Database from 'better-sqlite3';
import type { JobStatus } from '@nudge/core';
import type { BulkCommandResult, CancelJobsFilter } from '../bulk-command-types.js';
import { checkCancelFilter } from '../bulk-filter-check.js';
import { cancelConditions, sqliteBulkFilters } from '../bulk-filters.js';
import { runBulkPages, type BulkPage } from '../bulk-pages.js';
import { toSqliteTime } from './sqlite-row.js';
import { SQLITE_NOW } from './sqlite-time.js';
import type { IsolatedWrite, IsolatedWrites } from '../isolated-writes.js';
import { sqliteNoteIsolated, sqliteWriteIsolating } from './sqlite-isolating.js';

interface PageRow {
  id: number;
  status: JobStatus;
}

interface ChangedRow {
  id: number;
  kind: string;
  queue: string;
  version: number;
  claimed_by: string | null;
}

/**
 * The page read of a bulk cancel: a keyset walk of the unfinished index by id, so each page starts
 * after the last id of the one before and no row is read twice; ids above `@last_id` (the highest
 * when the command started) are jobs created since, left alone.
 */
export function sqliteCancelPageSql(filters: readonly string[]): string {
  return `
SELECT id, status FROM nudge_jobs INDEXED BY nudge_jobs_unfinished
 WHERE finished_at IS NULL AND id > @after_id AND id <= @last_id
   AND status IN (SELECT value FROM json_each(@statuses))${filters.map((f) => `\n   AND ${f}`).join('')}
 ORDER BY id
 LIMIT @size`;
}

// The page's rows, read in the same IMMEDIATE transaction, so none changed in between. The cancel
// bumps `version` and clears the lease: a running attempt's late outcome changes nothing and its
// heartbeat finds the lease gone.
const CANCEL = `
UPDATE nudge_jobs
   SET status = 'CANCELLED', version = version + 1, lease_expires_at = NULL, wait_signal = NULL,
       finished_at = ${SQLITE_NOW}
 WHERE id IN (SELECT value FROM json_each(@ids)) AND finished_at IS NULL
RETURNING id, kind, queue, version, claimed_by`;

/**
 * See {@link Store.cancelJobs}. Each page is one `IMMEDIATE` transaction run through `run` (the
 * store's busy retry), so other writers get the file's lock between pages. The page's update runs
 * in savepoints, so a row the database refuses is isolated (reported to `isolated`) and the rest
 * of the page cancelled.
 */
export async function sqliteCancelJobs(
  db: Database.Database,
  run: <T>(call: () => T) => Promise<T>,
  filter: CancelJobsFilter,
  isolated: IsolatedWrites,
  now?: Date,
): Promise<BulkCommandResult> {
  const statuses = JSON.stringify(checkCancelFilter(filter));
  const { sql: filters, values } = sqliteBulkFilters(cancelConditions(filter));
  const select = db.prepare<Record<string, unknown>, PageRow>(sqliteCancelPageSql(filters));
  const update = db.prepare<Record<string, unknown>, ChangedRow>(CANCEL);
  const last = await run(
    () => db.prepare<[], { last: number | null }>('SELECT max(id) AS last FROM nudge_jobs').get()?.last,
  );
  const page = db.transaction((cursor: number, size: number) => {
    const rows = select.all({ ...values, statuses, after_id: cursor, last_id: last ?? 0, size });
    const previous = new Map(rows.map((row) => [row.id, row.status]));
    const at = toSqliteTime(now);
    const written = sqliteWriteIsolating(db, 'cancel', rows, (part) =>
      update.all({ ids: JSON.stringify(part.map((row) => row.id)), now: at }),
    );
    sqliteNoteIsolated(db, written.isolated, { now: at });
    const changed = written.results;
    return {
      refused: written.isolated,
      rows: changed.map((row) => {
        const from = previous.get(row.id);
        if (!from) throw new Error(`job ${row.id} changed without being read`);
        return {
          id: row.id,
          kind: row.kind,
          queue: row.queue,
          previous: from,
          version: row.version,
          claimedBy: row.claimed_by,
        };
      }),
      next: rows.at(-1)?.id ?? cursor,
      done: rows.length < size,
    };
  });
  return runBulkPages(0, filter.limit, async (cursor, size) => {
    const { refused, ...done }: { refused: IsolatedWrite[] } & BulkPage<number> = await run(() =>
      page.immediate(cursor, size),
    );
    isolated.report(refused);
    return { ...done, isolated: refused.length };
  });
}

import type Database from 'better-sqlite3';
import type { BulkCommandResult, RetryJobsFilter } from '../bulk-command-types.js';
import { checkRetryFilter } from '../bulk-filter-check.js';
import { retryConditions, sqliteBulkFilters } from '../bulk-filters.js';
import { runBulkPages, type BulkPage } from '../bulk-pages.js';
import type { IsolatedWrite, IsolatedWrites } from '../isolated-writes.js';
import { sqliteNoteIsolated, sqliteWriteIsolating } from './sqlite-isolating.js';
import { toSqliteTime } from './sqlite-row.js';
import { SQLITE_NOW } from './sqlite-time.js';
import {
  SQLITE_RETRY_MARK_DEPENDENCIES,
  sqliteClearStepsSql,
  sqliteRetryEdgesSql,
  sqliteRetrySql,
} from './sqlite-retry-sql.js';
import { checkRetrySteps } from '../retry-steps.js';
import { sqliteClockAfter } from './sqlite-clock-after.js';

/** Where the next page starts: after this (kind, finished_at, id) of the finished index. */
interface RetryCursor {
  readonly kind: string;
  readonly finishedAt: string;
  readonly id: number;
}

// '' sorts before every kind (kinds are never empty) and every time.
const START: RetryCursor = { kind: '', finishedAt: '', id: 0 };

interface PageRow {
  id: number;
  kind: string;
  queue: string;
  finished_at: string;
}

/**
 * The page read of a bulk retry: a keyset walk of the finished index (status, kind, finished_at,
 * and the rowid), so each page starts after the last row of the one before and no row is read
 * twice. Only rows finished by `@cutoff` (when the command started) match, so a job this command
 * retried that fails again (finished later) is not retried again.
 */
export function sqliteRetryPageSql(filters: readonly string[]): string {
  return `
SELECT id, kind, queue, finished_at FROM nudge_jobs
 WHERE status = @status AND finished_at IS NOT NULL AND finished_at <= @cutoff
   AND (kind, finished_at, id) > (@after_kind, @after_finished_at, @after_id)${filters.map((f) => `\n   AND ${f}`).join('')}
 ORDER BY kind, finished_at, id
 LIMIT @size`;
}

/**
 * After the pages: a job the command left `WAITING` for a dependency that it was to retry too but
 * did not (refused: that dependency cancels on a failed dependency of its own) is settled as the
 * release trigger would have: `CANCELLED` at once when it cancels on a dependency that did not
 * succeed (whatever its other dependencies: no later outcome would cancel it, and none could
 * release it), else `PENDING` once every dependency has finished. `@ids`: the jobs the command
 * changed.
 */
const SETTLE_RETRIED = `
UPDATE nudge_jobs
   SET status = CASE WHEN on_dependency_failure IS 'cancel' AND (${badDependency('nudge_jobs')}) IS NOT NULL
                     THEN 'CANCELLED' ELSE 'PENDING' END,
       finished_at = CASE WHEN on_dependency_failure IS 'cancel' AND (${badDependency('nudge_jobs')}) IS NOT NULL
                          THEN ${SQLITE_NOW} END,
       last_error = CASE WHEN on_dependency_failure IS 'cancel' AND (${badDependency('nudge_jobs')}) IS NOT NULL
                         THEN 'dependency ' || (${badDependency('nudge_jobs')}) || ' did not succeed' ELSE last_error END
 WHERE id IN (SELECT value FROM json_each(@ids)) AND status = 'WAITING'
   AND ((on_dependency_failure IS 'cancel' AND (${badDependency('nudge_jobs')}) IS NOT NULL)
        OR NOT EXISTS (SELECT 1 FROM json_each(nudge_jobs.depends_on) AS x JOIN nudge_jobs AS d ON d.id = x.value
                        WHERE d.status NOT IN ('SUCCEEDED', 'FAILED', 'CANCELLED')))
RETURNING id`;

/** The first dependency of `job` that did not succeed (ended badly, or no longer exists), in SQL. */
function badDependency(job: string): string {
  return `SELECT x.value FROM json_each(${job}.depends_on) AS x LEFT JOIN nudge_jobs AS d ON d.id = x.value
           WHERE d.id IS NULL OR d.status IN ('FAILED', 'CANCELLED') LIMIT 1`;
}

const DROP_SETTLED_EDGES = `
DELETE FROM nudge_job_dependencies
 WHERE (depends_on_id, job_id) IN (
         SELECT x.value, j.id FROM nudge_jobs AS j, json_each(j.depends_on) AS x
          WHERE j.id IN (SELECT value FROM json_each(@ids)) AND j.status <> 'WAITING')`;

/**
 * A dependency that this same command retries (in this page or a later one), so its dependent
 * waits for it: it matches the command's status, cutoff and `filters`.
 */
function retriedByCommand(filters: readonly string[]): string {
  return `EXISTS (SELECT 1 FROM nudge_jobs WHERE id = d.id AND status = @status AND finished_at IS NOT NULL
                   AND finished_at <= @cutoff${filters.map((f) => ` AND ${f}`).join('')})`;
}

/**
 * See {@link Store.retryJobs}. Each page is one `IMMEDIATE` transaction run through `run` (the
 * store's busy retry), so other writers get the file's lock between pages. The page's writes run
 * in savepoints, so a row the database refuses is isolated (reported to `isolated`) and the rest
 * of the page retried. The steps of the jobs a part retried are cleared in its savepoint, as
 * `filter`'s `fromStep` or `resetSteps` say ({@link sqliteClearStepsSql}).
 */
export async function sqliteRetryJobs(
  db: Database.Database,
  run: <T>(call: () => T) => Promise<T>,
  filter: RetryJobsFilter,
  isolated: IsolatedWrites,
  now?: Date,
): Promise<BulkCommandResult> {
  checkRetryFilter(filter);
  const clearing = checkRetrySteps(filter);
  const { sql: filters, values } = sqliteBulkFilters(retryConditions(filter));
  const select = db.prepare<Record<string, unknown>, PageRow>(sqliteRetryPageSql(filters));
  // The page's rows, read in the same IMMEDIATE transaction, so none changed in between; the
  // status guard and the dependencies' verdict are the single retry's.
  const update = db.prepare<Record<string, unknown>, ChangedRow>(sqliteRetrySql(retriedByCommand(filters)));
  const edges = db.prepare<Record<string, unknown>>(sqliteRetryEdgesSql(retriedByCommand(filters)));
  const markDependencies = db.prepare<Record<string, unknown>>(SQLITE_RETRY_MARK_DEPENDENCIES);
  const clearSql = sqliteClearStepsSql(clearing);
  const clearSteps = clearSql === undefined ? undefined : db.prepare<Record<string, unknown>>(clearSql);
  const fromStep = clearing.type === 'from' ? { from_step: clearing.name } : {};
  // A job retried here and failed again within the cutoff's millisecond would match again: the
  // first page waits until the clock has passed the cutoff.
  const cutoff = now ? now.toISOString() : await run(() => sqliteClockAfter(db));
  const page = db.transaction((cursor: RetryCursor, size: number) => {
    const rows = select.all({
      ...values,
      status: filter.status,
      cutoff,
      after_kind: cursor.kind,
      after_finished_at: cursor.finishedAt,
      after_id: cursor.id,
      size,
    });
    const at = toSqliteTime(now);
    const written = sqliteWriteIsolating(db, 'retry', rows, (part) => {
      const ids = JSON.stringify(part.map((row) => row.id));
      const changed = update.all({ ...values, ids, status: filter.status, cutoff, now: at });
      const waiting = changed.filter((row) => row.status === 'WAITING').map((row) => row.id);
      if (waiting.length > 0) {
        edges.run({ ...values, ids: JSON.stringify(waiting), status: filter.status, cutoff });
        markDependencies.run({ ids: JSON.stringify(waiting) });
      }
      const stepped = changed.filter((row) => row.has_steps === 1).map((row) => row.id);
      if (clearSteps && stepped.length > 0) clearSteps.run({ ids: JSON.stringify(stepped), ...fromStep });
      return changed;
    });
    sqliteNoteIsolated(db, written.isolated, { now: at });
    const changed = written.results;
    const last = rows.at(-1);
    return {
      refused: written.isolated,
      rows: changed.map((row) => ({
        id: row.id,
        kind: row.kind,
        queue: row.queue,
        previous: filter.status,
        version: row.version,
        claimedBy: row.claimed_by,
      })),
      next: last ? { kind: last.kind, finishedAt: last.finished_at, id: last.id } : cursor,
      done: rows.length < size,
    };
  });
  const retriedIds: number[] = [];
  const result = await runBulkPages(START, filter.limit, async (cursor, size) => {
    const { refused, ...done }: { refused: IsolatedWrite[] } & BulkPage<RetryCursor> = await run(() =>
      page.immediate(cursor, size),
    );
    isolated.report(refused);
    for (const row of done.rows) retriedIds.push(row.id);
    return { ...done, isolated: refused.length };
  });
  if (retriedIds.length > 0) {
    const settle = db.prepare<Record<string, unknown>>(SETTLE_RETRIED);
    const dropEdges = db.prepare<Record<string, unknown>>(DROP_SETTLED_EDGES);
    const ids = JSON.stringify(retriedIds);
    await run(() =>
      db
        .transaction(() => {
          settle.run({ ids, now: toSqliteTime(now) });
          dropEdges.run({ ids });
        })
        .immediate(),
    );
  }
  return result;
}

interface ChangedRow {
  id: number;
  status: string;
  has_steps: number;
  kind: string;
  queue: string;
  version: number;
  claimed_by: string | null;
}

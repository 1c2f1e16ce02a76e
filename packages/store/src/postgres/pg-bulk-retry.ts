import type pg from 'pg';
import type { BulkCommandResult, RetryJobsFilter } from '../bulk-command-types.js';
import { checkRetryFilter } from '../bulk-filter-check.js';
import { bulkFilterSql, pgFilterBinding, retryConditions } from '../bulk-filters.js';
import { runBulkPages } from '../bulk-pages.js';
import { pgNow } from './pg-row.js';
import { pgClearStepsCte, pgRetryCtes } from './pg-retry-sql.js';
import { checkRetrySteps, type StepClearing } from '../retry-steps.js';
import { isRowWriteError, type IsolatedWrites } from '../isolated-writes.js';
import { pgNoteIsolated, pgWriteIsolating } from './pg-isolating.js';
import { pgTransaction } from './pg-transaction.js';

/** Where the next page starts: after this (finished_at, id) among the jobs of `kind`. */
interface RetryCursor {
  readonly kind: string;
  /** `finished_at` as PostgreSQL prints it, so it reads back to the microsecond. */
  readonly finishedAt: string;
  readonly id: number;
}

const FIRST = { finishedAt: '-infinity', id: 0 };

/**
 * One page of a bulk retry, within one kind. $1 status, $2 cutoff, $3 kind, $4..$5 the cursor,
 * $6 page size, $7 now (NULL: the database clock); filters follow. A keyset walk of the finished
 * index (status, kind, finished_at): each page starts after the last row of the one before, so no
 * row is read twice, and reads about the rows it changes. Only rows finished by the cutoff (when
 * the command started) match, so a job this command retried that fails again (finished later)
 * is not retried again. FOR UPDATE locks each row and, when another write changed it first,
 * checks the filter again on the new row: a row a concurrent command already moved is left out,
 * as the single retry would refuse it. The rows change as {@link pgRetryCtes} says; a dependency
 * that matches this command waits for it. Every row of the page comes back (`id` NULL for one its
 * dependencies blocked), so the cursor moves past each. The steps of the rows it changes are
 * cleared in the same statement as `clearing` says ({@link pgClearStepsCte}; `fromParam` holds the
 * `fromStep` name).
 */
export function pgRetryPageSql(
  filters: readonly string[],
  kindGiven = false,
  onlyParam?: string,
  clearing: StepClearing = { type: 'none' },
  fromParam = '',
): string {
  const where = filters.map((f) => `\n     AND ${f}`).join('');
  // By parts (after the database refused the page): only these ids of the page.
  const only = onlyParam === undefined ? '' : `\n     AND id = ANY(${onlyParam}::bigint[])`;
  // A dependency this command retries too (in this page or a later one): its dependent waits for it.
  const retried = `EXISTS (
    SELECT 1 FROM nudge_jobs WHERE id = d.id AND status = $1 AND finished_at IS NOT NULL
       AND finished_at <= $2::timestamptz${kindGiven ? ' AND kind = $3' : ''}${where})`;
  return `
WITH page AS MATERIALIZED (
  SELECT id, finished_at, depends_on, on_dependency_failure FROM nudge_jobs
   WHERE status = $1 AND kind = $3 AND finished_at IS NOT NULL AND finished_at <= $2::timestamptz
     AND finished_at >= $4::timestamptz AND (finished_at, id) > ($4::timestamptz, $5::bigint)${where}${only}
   ORDER BY finished_at, id
   LIMIT $6
   FOR UPDATE),
rows AS (SELECT id, depends_on, on_dependency_failure FROM page),
${pgRetryCtes(retried, 'true', '$7')}${pgClearStepsCte(clearing, fromParam)}
SELECT c.id, c.kind, c.queue, c.version, c.claimed_by, p.id AS page_id, p.finished_at::text AS cursor_at
  FROM page AS p LEFT JOIN changed AS c ON c.id = p.id
 ORDER BY p.finished_at, p.id`;
}

/**
 * The rows of a page, read alone (the page's own parameters; $7 and `fromParam` are read so they
 * keep their numbers).
 */
function pgRetryCandidatesSql(filters: readonly string[], fromParam: string): string {
  const from = fromParam === '' ? '' : `, ${fromParam}::text AS from_step`;
  return `
SELECT id, finished_at::text AS cursor_at, $7::timestamptz AS at${from} FROM nudge_jobs
 WHERE status = $1 AND kind = $3 AND finished_at IS NOT NULL AND finished_at <= $2::timestamptz
   AND finished_at >= $4::timestamptz AND (finished_at, id) > ($4::timestamptz, $5::bigint)${filters.map((f) => `\n   AND ${f}`).join('')}
 ORDER BY finished_at, id
 LIMIT $6`;
}

interface RetriedRow {
  id: number | null;
  kind: string;
  queue: string;
  version: number;
  claimed_by: string | null;
  page_id: number;
  cursor_at: string;
}

/**
 * After the pages: a job the command left `WAITING` for a dependency that it was to retry too but
 * did not (refused: that dependency cancels on a failed dependency of its own) is settled as the
 * release trigger would have: `CANCELLED` at once when it cancels on a dependency that did not
 * succeed (whatever its other dependencies: no later outcome would cancel it, and none could
 * release it), else `PENDING` once every dependency has finished. $1 the jobs the command
 * changed, $2 now (NULL: the database clock).
 */
const SETTLE_RETRIED = `
WITH settled AS (
  SELECT j.id,
         (SELECT x.value::bigint FROM jsonb_array_elements_text(j.depends_on) AS x
            LEFT JOIN nudge_jobs AS d ON d.id = x.value::bigint
           WHERE d.id IS NULL OR d.status IN ('FAILED', 'CANCELLED') LIMIT 1) AS bad,
         NOT EXISTS (SELECT 1 FROM jsonb_array_elements_text(j.depends_on) AS x
                       JOIN nudge_jobs AS d ON d.id = x.value::bigint
                      WHERE d.status NOT IN ('SUCCEEDED', 'FAILED', 'CANCELLED')) AS done
    FROM nudge_jobs AS j
   WHERE j.id = ANY($1::bigint[]) AND j.status = 'WAITING'
     FOR NO KEY UPDATE OF j),
changed AS (
  UPDATE nudge_jobs AS j
     SET status = CASE WHEN j.on_dependency_failure = 'cancel' AND s.bad IS NOT NULL THEN 'CANCELLED' ELSE 'PENDING' END,
         finished_at = CASE WHEN j.on_dependency_failure = 'cancel' AND s.bad IS NOT NULL THEN ${pgNow('$2')} END,
         last_error = CASE WHEN j.on_dependency_failure = 'cancel' AND s.bad IS NOT NULL
                           THEN 'dependency ' || s.bad || ' did not succeed' ELSE j.last_error END
    FROM settled AS s
   WHERE j.id = s.id AND j.status = 'WAITING'
     AND ((j.on_dependency_failure = 'cancel' AND s.bad IS NOT NULL) OR s.done)
  RETURNING j.id)
SELECT count(*) AS settled FROM changed`;

/** The next kind above $2 with jobs in status $1: one probe of the finished index. */
export const PG_NEXT_FINISHED_KIND = `
SELECT min(kind) AS kind FROM nudge_jobs WHERE status = $1 AND finished_at IS NOT NULL AND kind > $2`;

/**
 * See {@link Store.retryJobs}. The walk goes kind by kind (only `filter.kind` when given), each
 * kind in (finished_at, id) order, so each page is a plain range of the finished index.
 */
export async function pgRetryJobs(
  pool: pg.Pool,
  filter: RetryJobsFilter,
  isolated: IsolatedWrites,
  now?: Date,
): Promise<BulkCommandResult> {
  checkRetryFilter(filter);
  const clearing = checkRetrySteps(filter);
  const { rows } = await pool.query<{ cutoff: string }>(`SELECT ${pgNow('$1')}::text AS cutoff`, [
    now ?? null,
  ]);
  const cutoff = rows[0]?.cutoff;
  const nextKind = async (after: string): Promise<string | undefined> => {
    if (filter.kind !== undefined) return after < filter.kind ? filter.kind : undefined;
    const next = await pool.query<{ kind: string | null }>(PG_NEXT_FINISHED_KIND, [filter.status, after]);
    return next.rows[0]?.kind ?? undefined;
  };
  // '' sorts before every kind (kinds are never empty).
  const firstKind = await nextKind('');
  if (firstKind === undefined) return { changed: 0, isolated: 0, groups: [], running: [], pages: 0 };
  // The filter's parameters follow the page's seven; the kind is the page's own ($2, walked
  // kind by kind), not a condition.
  const filters = bulkFilterSql(
    retryConditions(filter).filter((c) => c.column !== 'kind'),
    pgFilterBinding(8),
  );
  // The fromStep name (when given) follows the filter's; the ids of a page by parts come last.
  const fromValues = clearing.type === 'from' ? [clearing.name] : [];
  const fromParam = clearing.type === 'from' ? `$${8 + filters.values.length}` : '';
  const text = pgRetryPageSql(filters.sql, filter.kind !== undefined, undefined, clearing, fromParam);
  const onlyParam = `$${8 + filters.values.length + fromValues.length}`;
  const byPartsText = pgRetryPageSql(filters.sql, filter.kind !== undefined, onlyParam, clearing, fromParam);
  const candidatesText = pgRetryCandidatesSql(filters.sql, fromParam);
  /**
   * A page by parts, after the database refused it: the page's rows, then the page's statement
   * restricted to each part, isolating the rows it refuses. @returns each row read (`id` NULL for
   * one not changed), as the page's statement returns them, and the isolated writes.
   */
  const byParts = (values: unknown[]) =>
    pgTransaction(pool, async (client) => {
      const read = await client.query<{ id: number; cursor_at: string }>(candidatesText, values);
      const written = await pgWriteIsolating(client, 'retry', read.rows, async (part) => {
        const ids = part.map((row) => row.id);
        return (await client.query<RetriedRow>(byPartsText, [...values, ids])).rows;
      });
      await pgNoteIsolated(client, written.isolated, { inTransaction: true });
      const changed = new Map(written.results.map((row) => [row.page_id, row]));
      const rows: RetriedRow[] = read.rows.map(
        (row) =>
          changed.get(row.id) ?? {
            id: null,
            kind: '',
            queue: '',
            version: 0,
            claimed_by: null,
            page_id: row.id,
            cursor_at: row.cursor_at,
          },
      );
      return { rows, refused: written.isolated };
    });
  const start: RetryCursor = { kind: firstKind, ...FIRST };
  const retriedIds: number[] = [];
  const result = await runBulkPages(start, filter.limit, async (cursor, size) => {
    const values = [
      filter.status,
      cutoff,
      cursor.kind,
      cursor.finishedAt,
      cursor.id,
      size,
      now ?? null,
      ...filters.values,
      ...fromValues,
    ];
    let page: { rows: RetriedRow[] };
    let refused = 0;
    try {
      page = await pool.query<RetriedRow>(text, values);
    } catch (error) {
      if (!isRowWriteError(error)) throw error;
      const parts = await byParts(values);
      isolated.report(parts.refused);
      page = parts;
      refused = parts.refused.length;
    }
    for (const row of page.rows) if (row.id !== null) retriedIds.push(Number(row.id));
    const last = page.rows.at(-1);
    const rows = page.rows.flatMap((row) =>
      row.id === null
        ? []
        : [
            {
              id: Number(row.id),
              kind: row.kind,
              queue: row.queue,
              previous: filter.status,
              version: row.version,
              claimedBy: row.claimed_by,
            },
          ],
    );
    if (last && page.rows.length === size) {
      return {
        rows,
        isolated: refused,
        next: { kind: cursor.kind, finishedAt: last.cursor_at, id: Number(last.page_id) },
        done: false,
      };
    }
    // This kind has no more: on to the next one.
    const kind = await nextKind(cursor.kind);
    return {
      rows,
      isolated: refused,
      next: kind === undefined ? cursor : { kind, ...FIRST },
      done: kind === undefined,
    };
  });
  if (retriedIds.length > 0) await pool.query(SETTLE_RETRIED, [retriedIds, now ?? null]);
  return result;
}

import type { Kysely } from 'kysely';
import type { JobStatus } from '@nudge/core';
import { toStatusCounts } from './count-by-status.js';
import { assertStorableFilter } from './storable-input.js';
import type { ListJobsQuery } from './read-types.js';

/** The jobs table as far as the reads below use it; each dialect's schema has these columns. */
interface ReadableJobs {
  nudge_jobs: { id: number; status: string; kind: string; queue: string };
}

// The dialects' Kysely schemas differ in column types only where these reads return whole rows,
// which each store turns into a Job with its own row mapper: so the reads take either.
const readable = <DB>(db: Kysely<DB>): Kysely<ReadableJobs> => db as unknown as Kysely<ReadableJobs>;

/** The row of job `id`, or `undefined`; `Row` is the dialect's row type. */
export async function selectJobRow<Row, DB>(db: Kysely<DB>, id: number): Promise<Row | undefined> {
  const row = await readable(db).selectFrom('nudge_jobs').selectAll().where('id', '=', id).executeTakeFirst();
  return row as Row | undefined;
}

/**
 * The rows {@link ListJobsQuery} selects, newest first: by ids, or by status, kind, queue and an
 * id to page before; `Row` is the dialect's row type.
 * @throws NudgeError `INVALID_REQUEST` when a filter could never match a stored job
 */
export async function selectJobRows<Row, DB>(db: Kysely<DB>, query: ListJobsQuery): Promise<Row[]> {
  assertStorableFilter(query);
  let select = readable(db).selectFrom('nudge_jobs').selectAll().orderBy('id', 'desc').limit(query.limit);
  if (query.ids) {
    if (query.ids.length === 0) return [];
    select = select.where('id', 'in', [...query.ids]);
  } else {
    if (query.status !== undefined) select = select.where('status', '=', query.status);
    if (query.kind !== undefined) select = select.where('kind', '=', query.kind);
    if (query.queue !== undefined) select = select.where('queue', '=', query.queue);
    if (query.beforeId !== undefined) select = select.where('id', '<', query.beforeId);
  }
  return (await select.execute()) as Row[];
}

/** Jobs per status, every status present (0 when none). */
export async function selectStatusCounts<DB>(db: Kysely<DB>): Promise<Record<JobStatus, number>> {
  const rows = await readable(db)
    .selectFrom('nudge_jobs')
    .select(['status', (eb) => eb.fn.countAll<number>().as('count')])
    .groupBy('status')
    .execute();
  return toStatusCounts(rows);
}

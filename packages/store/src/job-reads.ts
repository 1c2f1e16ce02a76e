import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { JobStatus, JsonValue } from '@nudge/core';
import { toStatusCounts } from './count-by-status.js';
import { assertStorableFilter } from './storable-input.js';
import type {
  DependencyOutcome,
  DependencyOutcomeOptions,
  ListDependentsQuery,
  ListJobsQuery,
} from './read-types.js';

/** The jobs table as far as the reads below use it; each dialect's schema has these columns. */
interface ReadableJobs {
  nudge_jobs: {
    id: number;
    status: string;
    run_at: unknown;
    finished_at: unknown;
    kind: string;
    queue: string;
    concurrency_key: string | null;
    result: unknown;
  };
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
 * Every column of `nudge_jobs`, in both dialects: the select list of a read that leaves
 * `payload` or `result` out. `pg-row.ts` and `sqlite-row.ts` check at compile time that their row
 * types have exactly these keys, so a new column cannot be forgotten here.
 */
export const JOB_COLUMNS = [
  'id',
  'kind',
  'queue',
  'payload',
  'status',
  'priority',
  'run_at',
  'attempts',
  'max_attempts',
  'version',
  'claimed_by',
  'lease_expires_at',
  'last_error',
  'idempotency_key',
  'concurrency_key',
  'throttle_key',
  'debounce_key',
  'result',
  'progress',
  'errors',
  'created_at',
  'started_at',
  'finished_at',
  'depends_on',
  'on_dependency_failure',
  'has_dependents',
  'has_steps',
  'wait_signal',
] as const;

/** The columns of `nudge_jobs`, by name. */
export type JobColumn = (typeof JOB_COLUMNS)[number];

/**
 * The rows {@link ListJobsQuery} selects, newest first: by ids, or by status, kind, queue,
 * concurrency key and an id to page before; `Row` is the dialect's row type.
 * @throws NudgeError `INVALID_REQUEST` when a filter could never match a stored job
 */
export async function selectJobRows<Row, DB>(db: Kysely<DB>, query: ListJobsQuery): Promise<Row[]> {
  assertStorableFilter(query);
  const { payload = true, result = true } = query.columns ?? {};
  const from = readable(db).selectFrom('nudge_jobs');
  // A column left out is read as NULL, so the row mappers see the same keys either way.
  const all = from.selectAll();
  const some = from.select([
    ...(JOB_COLUMNS.filter((c) => (c !== 'payload' || payload) && (c !== 'result' || result)) as ['id']),
    ...(payload ? [] : [sql<null>`NULL`.as('payload')]),
    ...(result ? [] : [sql<null>`NULL`.as('result')]),
  ]);
  let select = (payload && result ? all : (some as unknown as typeof all))
    .orderBy('id', 'desc')
    .limit(query.limit);
  if (query.ids) {
    if (query.ids.length === 0) return [];
    select = select.where('id', 'in', [...query.ids]);
  } else {
    if (query.status !== undefined) select = select.where('status', '=', query.status);
    if (query.kind !== undefined) select = select.where('kind', '=', query.kind);
    if (query.queue !== undefined) select = select.where('queue', '=', query.queue);
    if (query.concurrencyKey !== undefined)
      select = select.where('concurrency_key', '=', query.concurrencyKey);
    if (query.beforeId !== undefined) select = select.where('id', '<', query.beforeId);
  }
  return (await select.execute()) as Row[];
}

/**
 * The dependents {@link ListDependentsQuery} selects, oldest first, without `payload` and
 * `result`; `names` is the dialect's test that a row's `depends_on` holds `query.id` (a jsonb
 * containment on PostgreSQL, `json_each` on SQLite).
 */
export async function selectDependentRows<Row, DB>(
  db: Kysely<DB>,
  query: ListDependentsQuery,
  names: RawBuilder<boolean>,
): Promise<Row[]> {
  const rows = await readable(db)
    .selectFrom('nudge_jobs')
    .select([
      ...(JOB_COLUMNS.filter((c) => c !== 'payload' && c !== 'result') as ['id']),
      sql<null>`NULL`.as('payload'),
      sql<null>`NULL`.as('result'),
    ])
    // A dependent's id is above its dependency's: the read starts there on the primary key.
    .where('id', '>', Math.max(query.id, query.afterId ?? 0))
    .where(names)
    .orderBy('id', 'asc')
    .limit(query.limit)
    .execute();
  return rows as Row[];
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

/** Ids per read of {@link selectDependencyOutcomes}: below both dialects' bind limits. */
const IDS_PER_READ = 1000;

/** A time column as either dialect returns it: a `Date` (PostgreSQL) or ISO-8601 text (SQLite). */
const toDate = (value: unknown): Date => (value instanceof Date ? value : new Date(String(value)));

/**
 * The status (and with `results`, the result; with `times`, `runAt` and `finishedAt`) of each
 * job of `ids` that exists; `parseResult` turns the dialect's `result` column into JSON (SQLite
 * keeps text, PostgreSQL parses jsonb).
 */
export async function selectDependencyOutcomes<DB>(
  db: Kysely<DB>,
  ids: readonly number[],
  { results, times = false }: DependencyOutcomeOptions,
  parseResult: (value: unknown) => JsonValue | null,
): Promise<Map<number, DependencyOutcome>> {
  const out = new Map<number, DependencyOutcome>();
  for (let start = 0; start < ids.length; start += IDS_PER_READ) {
    const page = ids.slice(start, start + IDS_PER_READ);
    const rows = await readable(db)
      .selectFrom('nudge_jobs')
      .select([
        'id',
        'status',
        ...(results ? (['result'] as const) : []),
        ...(times ? (['run_at', 'finished_at'] as const) : []),
      ])
      .where('id', 'in', page)
      .execute();
    for (const row of rows as Array<{
      id: number;
      status: string;
      result?: unknown;
      run_at?: unknown;
      finished_at?: unknown;
    }>) {
      const outcome: { status: JobStatus; result: JsonValue | null; runAt?: Date; finishedAt?: Date | null } =
        {
          status: row.status as JobStatus,
          result: 'result' in row ? parseResult(row.result) : null,
        };
      if (times) {
        outcome.runAt = toDate(row.run_at);
        outcome.finishedAt = row.finished_at === null ? null : toDate(row.finished_at);
      }
      out.set(Number(row.id), outcome);
    }
  }
  return out;
}

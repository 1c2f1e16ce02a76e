import type { ColumnType, Generated } from 'kysely';
import type pg from 'pg';
import type { Enqueuer, JsonValue } from '@nudge/core';
import { EnqueueReadBackError, enqueuePlan, type ReturnedRow, type SqlQuery } from '../sql/index.js';
import type { EnqueuedJob, EnqueueInput } from '../store.js';
import type { StoredAttemptError } from '../stored-attempt-error.js';
import { pgRowToJob, type PgJobRow } from './pg-row.js';
import { pgTransaction } from './pg-transaction.js';

/** The table as Kysely sees it. */
export interface PgSchema {
  nudge_jobs: Omit<PgJobRow, 'id' | 'payload' | 'queue' | 'progress' | 'errors'> & {
    id: Generated<number>;
    payload: string | JsonValue;
    queue: Generated<string>;
    progress: ColumnType<JsonValue | null, string | null, string | null>;
    errors: ColumnType<StoredAttemptError[], string | undefined, string>;
  };
  nudge_queues: { name: string; paused: Generated<boolean>; updated_at: Generated<Date> };
}

/** Tries of a keyed job whose existing row vanished between its insert and its read-back. */
const KEY_TRIES = 3;

type PgReturnedRow = PgJobRow & ReturnedRow;

/** Runs the enqueue plan (`sql/enqueue-plan.ts`) on `client` and builds each job's view. */
async function runPlan(
  client: pg.Pool | pg.ClientBase,
  inputs: readonly EnqueueInput[],
  enqueuer: Enqueuer | undefined,
): Promise<EnqueuedJob[]> {
  const plan = enqueuePlan<PgReturnedRow>('postgres', inputs, 'rows', 'refuse', enqueuer);
  const run = async (query: SqlQuery) =>
    (await client.query<PgReturnedRow>(query.sql, [...query.params])).rows;
  let step = plan.next();
  while (!step.done) step = plan.next(await run(step.value));
  return step.value.map(({ row, created }) => ({ ...pgRowToJob(row), created }));
}

/**
 * One job that takes no steps (see `enqueueRoute`): a single statement without a key; with a
 * key, the insert and, when the key existed, a read of the existing job (in READ COMMITTED each
 * statement sees what committed before it, and `ON CONFLICT` waited for a concurrent insert of the
 * same key to commit or roll back). A job deleted between the two is enqueued again, up to
 * {@link KEY_TRIES} times.
 * @param enqueuer - the API key that enqueues (see `Store.enqueue`)
 * @throws EnqueueReadBackError when the existing job kept vanishing
 */
export async function pgEnqueueOne(
  pool: pg.Pool,
  input: EnqueueInput,
  enqueuer?: Enqueuer,
): Promise<EnqueuedJob> {
  for (let tries = 1; ; tries += 1) {
    try {
      const [job] = await runPlan(pool, [input], enqueuer);
      if (!job) throw new Error('the enqueue plan returned no job');
      return job;
    } catch (error) {
      if (!(error instanceof EnqueueReadBackError) || tries >= KEY_TRIES) throw error;
    }
  }
}

/**
 * Many jobs in one transaction, returned in input order: the enqueue plan (`sql/enqueue-plan.ts`) (one INSERT
 * per run of up to 1,000 jobs that set the same fields, then a read-back of keys that existed).
 * @param enqueuer - the API key that enqueues (see `Store.enqueue`)
 * @throws EnqueueReadBackError when a job whose key existed vanished during the batch
 */
export async function pgEnqueueMany(
  pool: pg.Pool,
  inputs: readonly EnqueueInput[],
  enqueuer?: Enqueuer,
): Promise<EnqueuedJob[]> {
  return pgTransaction(pool, (client) => runPlan(client, inputs, enqueuer));
}

import type Database from 'better-sqlite3';
import { startProducerTrace } from './producer-tracing.js';
import { retrySqliteBusy, retrySqliteBusySync, validateJobInputs, type JsonValue } from '@nudge/core';
import type pg from 'pg';
import { inTransaction, type ReturnedRow, type SqlDialect, type SqlQuery } from '@nudge/store/sql';
import { enqueuePlan, isSingleStatement } from './enqueue-plan.js';
import {
  detectExecutor,
  kyselyQuery,
  pgQuery,
  sqliteQuery,
  type DetectedExecutor,
  type EnqueueExecutor,
} from './enqueue-executor.js';
import type { EnqueueResult, JobFor, JobInput } from './job-input.js';

/** Options of {@link enqueue} and {@link enqueueMany}. */
export interface EnqueueOptions {
  /**
   * The dialect of a Kysely instance whose adapter is not Kysely's own `PostgresAdapter` or
   * `SqliteAdapter` (a third-party dialect); detected otherwise.
   */
  readonly dialect?: SqlDialect;
}

type Plan = ReturnType<typeof enqueuePlan>;
type AnyJob = JobInput<string, unknown>;

function runSync(plan: Plan, run: (query: SqlQuery) => ReturnedRow[]): EnqueueResult[] {
  let step = plan.next();
  while (!step.done) step = plan.next(run(step.value));
  return step.value;
}

async function runAsync(
  plan: Plan,
  run: (query: SqlQuery) => Promise<ReturnedRow[]>,
): Promise<EnqueueResult[]> {
  let step = plan.next();
  while (!step.done) step = plan.next(await run(step.value));
  return step.value;
}

/** PostgreSQL's `no_active_sql_transaction`: `SAVEPOINT` outside a transaction block. */
const NO_ACTIVE_TRANSACTION = '25P01';

/** Every statement in one transaction on a `pg` client: the caller's when it is in one, else its own. */
async function pgClientEnqueue(client: pg.ClientBase, jobs: readonly AnyJob[]): Promise<EnqueueResult[]> {
  const run = (query: SqlQuery) => pgQuery(client, query);
  if (isSingleStatement('postgres', jobs)) return runAsync(enqueuePlan('postgres', jobs), run);
  // Several statements: a savepoint both tells whether the caller has a transaction open and
  // keeps the caller's transaction usable if the enqueue fails.
  try {
    await client.query('SAVEPOINT nudge_enqueue');
  } catch (error) {
    if ((error as { code?: unknown }).code !== NO_ACTIVE_TRANSACTION) throw error;
    return pgOwnTransaction(client, jobs);
  }
  try {
    const results = await runAsync(enqueuePlan('postgres', jobs), run);
    await client.query('RELEASE SAVEPOINT nudge_enqueue');
    return results;
  } catch (error) {
    await client.query('ROLLBACK TO SAVEPOINT nudge_enqueue').catch(() => undefined);
    throw error;
  }
}

async function pgOwnTransaction(client: pg.ClientBase, jobs: readonly AnyJob[]): Promise<EnqueueResult[]> {
  return inTransaction(
    (sql) => client.query(sql),
    () => runAsync(enqueuePlan('postgres', jobs), (query) => pgQuery(client, query)),
  );
}

async function pgPoolEnqueue(pool: pg.Pool, jobs: readonly AnyJob[]): Promise<EnqueueResult[]> {
  if (isSingleStatement('postgres', jobs)) {
    return runAsync(enqueuePlan('postgres', jobs), (query) => pgQuery(pool, query));
  }
  const client = await pool.connect();
  try {
    return await pgOwnTransaction(client, jobs);
  } finally {
    client.release();
  }
}

/** better-sqlite3: in the caller's transaction (a savepoint), else a `BEGIN IMMEDIATE` of its own, retried while busy. */
function sqliteTransaction(db: Database.Database, jobs: readonly AnyJob[]): () => EnqueueResult[] {
  // Inside the caller's transaction, db.transaction() nests as a savepoint: a failure undoes the
  // enqueue only, and the error reaches the caller's transaction function.
  const write = db.transaction(() => runSync(enqueuePlan('sqlite', jobs), (query) => sqliteQuery(db, query)));
  return db.inTransaction ? () => write() : () => write.immediate();
}

async function enqueueDetected(found: DetectedExecutor, jobs: readonly AnyJob[]): Promise<EnqueueResult[]> {
  switch (found.type) {
    case 'better-sqlite3': {
      const write = sqliteTransaction(found.db, jobs);
      // In the caller's transaction the write happens now, synchronously; retrying is the
      // caller's business (its BEGIN IMMEDIATE and busy_timeout).
      return found.db.inTransaction ? write() : retrySqliteBusy(write);
    }
    case 'kysely': {
      const { db, dialect } = found;
      if (db.isTransaction || isSingleStatement(dialect, jobs)) {
        const write = () => runAsync(enqueuePlan(dialect, jobs), (query) => kyselyQuery(db, query));
        return dialect === 'sqlite' && !db.isTransaction ? retrySqliteBusy(write) : write();
      }
      const write = () =>
        db
          .transaction()
          .execute((trx) => runAsync(enqueuePlan(dialect, jobs), (query) => kyselyQuery(trx, query)));
      return dialect === 'sqlite' ? retrySqliteBusy(write) : write();
    }
    case 'pg-pool':
      return pgPoolEnqueue(found.pool, jobs);
    case 'pg-client':
      return pgClientEnqueue(found.client, jobs);
  }
}

/**
 * Enqueues jobs inside the caller's own transaction (the outbox pattern): the jobs exist if and
 * only if that transaction commits. Each job is validated before anything is written; runs of
 * jobs with the same fields become multi-row INSERTs (at most 1,000 rows each). A job whose kind
 * and idempotency key exist writes nothing and returns the existing id with `created: false`.
 * Times come from the database clock (`delayMs`), and a future start is stored `SCHEDULED`.
 *
 * Where the statements run, by executor:
 * - Kysely transaction, or a `pg` client inside the caller's `BEGIN`: in that transaction.
 * - Kysely instance or `pg.Pool`: one statement on its own, else a transaction of its own.
 * - `pg` client outside a transaction: a transaction of its own.
 * - better-sqlite3 `Database` inside `db.transaction(…)`: in it, synchronously (use
 *   {@link enqueueManySync} there to get the ids back synchronously); outside one, its own
 *   `BEGIN IMMEDIATE` transaction, retried on `SQLITE_BUSY` for up to 5 s of pauses (also for
 *   a Kysely instance on SQLite).
 *
 * Call {@link nudge} after the commit to have the server start the jobs at once.
 *
 * @typeParam Payloads - kind → payload type map, e.g. `PayloadsOf<typeof handlers>`
 * @returns `{ id, created }` per job, in input order
 * @throws NudgeError `INVALID_REQUEST`, `PAYLOAD_TOO_DEEP` or `PAYLOAD_UNSTORABLE` naming the
 *   job (`jobs/3/…`) and field, before anything is written
 * @throws TypeError when `executor` is not a supported one
 * @throws the driver's error when the database refuses (the schema is not migrated, SQLITE_BUSY
 *   inside the caller's transaction, …)
 */
export async function enqueueMany<Payloads extends object = Record<string, JsonValue>>(
  executor: EnqueueExecutor,
  jobs: ReadonlyArray<JobFor<Payloads>>,
  options: EnqueueOptions = {},
): Promise<EnqueueResult[]> {
  const inputs = jobs as ReadonlyArray<AnyJob>;
  validateJobInputs(inputs);
  const found = detectExecutor(executor, options.dialect);
  if (inputs.length === 0) return [];
  const traced = startProducerTrace(inputs.length);
  if (traced.traceContext === undefined) return enqueueDetected(found, inputs);
  let results: EnqueueResult[];
  try {
    results = await enqueueDetected(found, withTraceContext(inputs, traced.traceContext));
  } catch (error) {
    traced.finish(undefined, error);
    throw error;
  }
  traced.finish(results.map((result) => result.id));
  return results;
}

/**
 * {@link enqueueMany} for one job.
 *
 * @example
 * await db.transaction().execute(async (trx) => {
 *   const order = await trx.insertInto('orders').values(row).returning('id').executeTakeFirstOrThrow();
 *   await enqueue(trx, { kind: 'sendReceipt', payload: { orderId: order.id } });
 * });
 * await nudge('http://127.0.0.1:3000');
 * @throws see {@link enqueueMany} (messages name the field without a `jobs/N/` prefix)
 */
export async function enqueue<Payloads extends object = Record<string, JsonValue>>(
  executor: EnqueueExecutor,
  job: JobFor<Payloads>,
  options: EnqueueOptions = {},
): Promise<EnqueueResult> {
  const [result] = await enqueueMany<Payloads>(executor, [job], options);
  return result as EnqueueResult;
}

/**
 * {@link enqueueMany} for a better-sqlite3 database, synchronously: the form to use inside
 * `db.transaction(…)` (whose function cannot be async). Inside a transaction it writes in it (a
 * savepoint, so a failure undoes only the enqueue); outside one, in a `BEGIN IMMEDIATE`
 * transaction of its own, retried on `SQLITE_BUSY` for up to 5 s of pauses that block the thread.
 *
 * @throws see {@link enqueueMany}
 */
export function enqueueManySync<Payloads extends object = Record<string, JsonValue>>(
  db: Database.Database,
  jobs: ReadonlyArray<JobFor<Payloads>>,
): EnqueueResult[] {
  const inputs = jobs as ReadonlyArray<AnyJob>;
  validateJobInputs(inputs);
  const found = detectExecutor(db);
  if (found.type !== 'better-sqlite3') throw new TypeError('enqueueManySync needs a better-sqlite3 Database');
  if (inputs.length === 0) return [];
  const traced = startProducerTrace(inputs.length);
  const write = sqliteTransaction(
    db,
    traced.traceContext === undefined ? inputs : withTraceContext(inputs, traced.traceContext),
  );
  let results: EnqueueResult[];
  try {
    results = db.inTransaction ? write() : retrySqliteBusySync(write);
  } catch (error) {
    traced.finish(undefined, error);
    throw error;
  }
  traced.finish(results.map((result) => result.id));
  return results;
}

/** {@link enqueueManySync} for one job. @throws see {@link enqueueMany} */
export function enqueueSync<Payloads extends object = Record<string, JsonValue>>(
  db: Database.Database,
  job: JobFor<Payloads>,
): EnqueueResult {
  return enqueueManySync<Payloads>(db, [job])[0] as EnqueueResult;
}

/** `jobs`, each carrying `traceContext` (the `trace_context` column). */
const withTraceContext = (jobs: ReadonlyArray<AnyJob>, traceContext: string): AnyJob[] =>
  jobs.map((job) => ({ ...job, traceContext }));

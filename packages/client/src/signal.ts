import type Database from 'better-sqlite3';
import { retrySqliteBusy, retrySqliteBusySync, validateSignal, type JsonValue } from '@nudge/core';
import {
  sendSignalPlan,
  signalRefusal,
  type SentSignal,
  type SignalInput,
  type SqlDialect,
  type SqlQuery,
} from '@nudge/store/sql';
import {
  detectExecutor,
  kyselyQuery,
  pgQuery,
  sqliteQuery,
  type DetectedExecutor,
  type EnqueueExecutor,
} from './enqueue-executor.js';

/** Options of {@link signal} and {@link signalSync}. */
export interface SignalOptions {
  /**
   * Your id for this signal, 1 to 200 characters: sending it again to the same job stores nothing
   * and answers the id of the signal first sent with it (`created: false`). Without it, every send
   * is a new signal.
   */
  readonly signalId?: string;
  /** The dialect of a Kysely instance whose adapter is not Kysely's own (see `EnqueueOptions`). */
  readonly dialect?: SqlDialect;
}

/** What a send did: the signal's id, and `false` for a repeat of a `signalId` (nothing stored). */
export interface SignalResult {
  readonly id: number;
  readonly created: boolean;
}

type Plan = ReturnType<typeof sendSignalPlan>;

function runSync(plan: Plan, run: (query: SqlQuery) => readonly unknown[]): SentSignal {
  let step = plan.next();
  while (!step.done) step = plan.next(run(step.value));
  return step.value;
}

async function runAsync(
  plan: Plan,
  run: (query: SqlQuery) => Promise<readonly unknown[]>,
): Promise<SentSignal> {
  let step = plan.next();
  while (!step.done) step = plan.next(await run(step.value));
  return step.value;
}

/** The store's input for a checked signal. */
function inputOf(
  jobId: number,
  name: string,
  payload: JsonValue | undefined,
  options: SignalOptions,
): SignalInput {
  validateSignal({ jobId, name, signalId: options.signalId, payload });
  return {
    jobId,
    name,
    payloadJson: payload === undefined ? null : JSON.stringify(payload),
    ...(options.signalId === undefined ? {} : { signalId: options.signalId }),
  };
}

const resultOf = (sent: SentSignal): SignalResult => ({ id: sent.signal.id, created: sent.created });

/** better-sqlite3: in the caller's transaction when it has one, else in a `BEGIN IMMEDIATE` of its own. */
function sqliteSend(db: Database.Database, input: SignalInput): () => SentSignal {
  const send = db.transaction(() =>
    runSync(sendSignalPlan('sqlite', input), (query) => sqliteQuery(db, query)),
  );
  return db.inTransaction ? () => send() : () => send.immediate();
}

async function sendDetected(found: DetectedExecutor, input: SignalInput): Promise<SentSignal> {
  switch (found.type) {
    case 'better-sqlite3': {
      const send = sqliteSend(found.db, input);
      return found.db.inTransaction ? send() : retrySqliteBusy(send);
    }
    case 'kysely': {
      const { db, dialect } = found;
      const send = () => runAsync(sendSignalPlan(dialect, input), (query) => kyselyQuery(db, query));
      return dialect === 'sqlite' && !db.isTransaction ? retrySqliteBusy(send) : send();
    }
    case 'pg-pool':
      return runAsync(sendSignalPlan('postgres', input), (query) => pgQuery(found.pool, query));
    case 'pg-client':
      return runAsync(sendSignalPlan('postgres', input), (query) => pgQuery(found.client, query));
  }
}

/**
 * Sends the signal `name` with `payload` to job `jobId` inside the caller's own transaction: the
 * signal exists if and only if that transaction commits. A job `WAITING` for that name in
 * `ctx.waitForSignal` becomes `PENDING` in the same transaction (the insert's trigger, which
 * also refuses a job that does not exist or has finished); a signal sent before the wait is kept,
 * and the wait returns it. One `INSERT` (and, for a repeat of `signalId`, one read).
 *
 * Where it runs, by executor: a Kysely transaction, a `pg` client inside the caller's `BEGIN`, or a
 * better-sqlite3 `Database` inside `db.transaction(…)` (use {@link signalSync} there): in that
 * transaction. A Kysely instance, a `pg.Pool` or a client outside a transaction: on its own
 * (committed at once). A better-sqlite3 `Database` outside a transaction: a `BEGIN IMMEDIATE` of its
 * own, retried on `SQLITE_BUSY` for up to 5 s of pauses (also a Kysely instance on SQLite).
 *
 * On PostgreSQL, a refused signal (an unknown or finished job) fails its statement, which aborts
 * the caller's transaction as any failed statement does.
 *
 * Call {@link nudge} after the commit to have the server start a released job at once (a server
 * that listens hears of it anyway, through `LISTEN` or, on SQLite, the file's change counter).
 *
 * @example
 * await db.transaction().execute(async (trx) => {
 *   await trx.updateTable('orders').set({ approved: true }).where('id', '=', orderId).execute();
 *   await signal(trx, jobId, 'approve', { by: userId }, { signalId: `order-${orderId}` });
 * });
 * @param payload - what the wait returns, any JSON value (nested at most 100 levels); omitted: `null`
 * @returns the signal's id; `created: false` when `signalId` named a signal already sent (nothing stored)
 * @throws NudgeError `INVALID_REQUEST` (a `jobId` that is not a positive integer, a `name` or
 *   `signalId` outside 1 to 200 characters), `PAYLOAD_TOO_DEEP` or `PAYLOAD_UNSTORABLE` before
 *   anything is written; `JOB_NOT_FOUND` when no job has the id; `JOB_STATE_CONFLICT` when it has
 *   finished (`SUCCEEDED`, `FAILED` or `CANCELLED`)
 * @throws TypeError when `executor` is not a supported one
 * @throws the driver's error when the database refuses otherwise (the schema is not migrated, …)
 */
export async function signal(
  executor: EnqueueExecutor,
  jobId: number,
  name: string,
  payload?: JsonValue,
  options: SignalOptions = {},
): Promise<SignalResult> {
  const input = inputOf(jobId, name, payload, options);
  const found = detectExecutor(executor, options.dialect);
  try {
    return resultOf(await sendDetected(found, input));
  } catch (error) {
    throw signalRefusal(error, jobId) ?? error;
  }
}

/**
 * {@link signal} for a better-sqlite3 database, synchronously: the form to use inside
 * `db.transaction(…)` (whose function cannot be async), so that a refusal throws there and rolls
 * the caller's transaction back. Outside a transaction, a `BEGIN IMMEDIATE` transaction of its
 * own, retried on `SQLITE_BUSY` for up to 5 s of pauses that block the thread.
 *
 * @throws see {@link signal}
 */
export function signalSync(
  db: Database.Database,
  jobId: number,
  name: string,
  payload?: JsonValue,
  options: Omit<SignalOptions, 'dialect'> = {},
): SignalResult {
  const input = inputOf(jobId, name, payload, options);
  const found = detectExecutor(db);
  if (found.type !== 'better-sqlite3') throw new TypeError('signalSync needs a better-sqlite3 Database');
  const send = sqliteSend(db, input);
  try {
    return resultOf(db.inTransaction ? send() : retrySqliteBusySync(send));
  } catch (error) {
    throw signalRefusal(error, jobId) ?? error;
  }
}

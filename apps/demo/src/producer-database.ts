import Database from 'better-sqlite3';
import pg from 'pg';
import { enqueueMany, enqueueManySync, signal, signalSync, type JobFor } from '@nudge/client';
import type { JsonValue } from '@nudge/core';
import type { DemoPayloads } from './handlers.js';

/**
 * The producer's database, as an application's would be: it opens its own connection and writes
 * jobs inside transactions of its own with `@nudge/client`'s transactional enqueue (the outbox
 * pattern). No nudge server code is involved; the jobs are durable once a transaction commits.
 */
export interface ProducerDatabase {
  /**
   * Enqueues every job in one transaction of the producer's; all or none are committed.
   * @returns the jobs' ids, in the order given
   * @throws Error when the database has no `nudge_jobs` table (the server migrates it) or the
   *   write fails
   */
  enqueueJobs(jobs: ReadonlyArray<JobFor<DemoPayloads>>): Promise<number[]>;
  /**
   * Sends the signal `name` with `payload` to job `jobId` in a transaction of the producer's own,
   * with `@nudge/client`'s `signal` (`signalSync` on SQLite): the signal exists if and only if the
   * transaction commits, and a job waiting for it becomes `PENDING` in that same transaction.
   * @throws NudgeError `JOB_NOT_FOUND` or `JOB_STATE_CONFLICT` (the job has finished); nothing is
   *   committed
   */
  sendSignal(jobId: number, name: string, payload: JsonValue): Promise<void>;
  /** Closes the connections. */
  close(): Promise<void>;
}

/** The message for a database the server has not migrated yet. */
export function missingTableMessage(where: string): string {
  return `${where} has no nudge_jobs table: start the nudge server on it first (it creates the schema)`;
}

/** PostgreSQL's code for "relation does not exist". */
const UNDEFINED_TABLE = '42P01';

/** PostgreSQL: a small pool; each batch inside `BEGIN` … `COMMIT` on a client of its own. */
function openPostgres(connectionString: string): ProducerDatabase {
  const pool = new pg.Pool({ connectionString, max: 2 });
  const url = new URL(connectionString);
  return {
    enqueueJobs: async (jobs) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const results = await enqueueMany<DemoPayloads>(client, jobs);
        await client.query('COMMIT');
        return results.map((result) => result.id);
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        if ((error as { code?: unknown }).code === UNDEFINED_TABLE) {
          throw new Error(missingTableMessage(`database ${url.pathname.slice(1)} on ${url.host}`));
        }
        throw error;
      } finally {
        client.release();
      }
    },
    sendSignal: async (jobId, name, payload) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await signal(client, jobId, name, payload);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

/**
 * SQLite: one connection with a busy timeout; each batch in a `BEGIN IMMEDIATE` transaction (the
 * write lock taken up front, waiting up to the busy timeout for the server's own writes).
 */
function openSqliteFile(path: string, busyTimeoutMs = 5000): ProducerDatabase {
  let db: Database.Database;
  try {
    db = new Database(path, { fileMustExist: true });
  } catch (error) {
    throw new Error(`cannot open SQLite database ${path}: ${(error as Error).message}`, { cause: error });
  }
  db.pragma(`busy_timeout = ${Math.trunc(busyTimeoutMs)}`);
  if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'nudge_jobs'").get()) {
    db.close();
    throw new Error(missingTableMessage(path));
  }
  const write = db.transaction((jobs: ReadonlyArray<JobFor<DemoPayloads>>) =>
    enqueueManySync<DemoPayloads>(db, jobs),
  );
  const send = db.transaction((jobId: number, name: string, payload: JsonValue) =>
    signalSync(db, jobId, name, payload),
  );
  return {
    enqueueJobs: async (jobs) => write.immediate(jobs).map((result) => result.id),
    sendSignal: async (jobId, name, payload) => void send.immediate(jobId, name, payload),
    close: async () => void db.close(),
  };
}

/**
 * Opens the producer's database a URL names, read the way the server reads it: `postgres://` or
 * `postgresql://` is PostgreSQL; `sqlite:PATH`, `sqlite:///abs/path`, `file:PATH` or a bare path
 * is a SQLite file.
 *
 * @throws Error when the URL has another scheme or names no file, or the SQLite file is missing
 *   or has no `nudge_jobs` table
 */
export function openProducerDatabase(databaseUrl: string): ProducerDatabase {
  if (/^postgres(ql)?:\/\//i.test(databaseUrl)) return openPostgres(databaseUrl);
  const match = /^(sqlite|file):(\/\/)?(.*)$/i.exec(databaseUrl);
  if (!match && /^[a-z][a-z0-9+.-]*:\/\//i.test(databaseUrl)) {
    throw new Error(`unsupported database URL scheme in "${databaseUrl}": use postgres://… or sqlite:PATH`);
  }
  const path = match ? (match[3] ?? '') : databaseUrl;
  if (path.trim() === '') throw new Error(`database URL "${databaseUrl}" names no SQLite file`);
  return openSqliteFile(path);
}

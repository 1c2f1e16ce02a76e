import Database from 'better-sqlite3';
import { missingTableMessage, type NewJob, type Outbox } from './outbox.js';

/**
 * An {@link Outbox} on a SQLite file. Each batch is one `BEGIN IMMEDIATE` transaction (the write
 * lock is taken up front, so it cannot fail half-way on a lock upgrade) with a busy timeout, so
 * it waits for the server's own writes instead of failing with SQLITE_BUSY.
 */
export class SqliteOutbox implements Outbox {
  readonly #db: Database.Database;
  readonly #insert: Database.Statement<[string, string], { id: number }>;
  readonly #insertAll: (jobs: readonly NewJob[]) => number[];

  /**
   * Opens an existing database file.
   *
   * @param busyTimeoutMs - how long a write waits for another process's lock, in ms
   * @throws Error when the file does not exist or has no `nudge_jobs` table
   */
  constructor(path: string, busyTimeoutMs = 5000) {
    try {
      this.#db = new Database(path, { fileMustExist: true });
    } catch (error) {
      throw new Error(`cannot open SQLite database ${path}: ${(error as Error).message}`, { cause: error });
    }
    this.#db.pragma(`busy_timeout = ${Math.trunc(busyTimeoutMs)}`);
    try {
      this.#insert = this.#db.prepare('INSERT INTO nudge_jobs (kind, payload) VALUES (?, ?) RETURNING id');
    } catch (error) {
      this.#db.close();
      if (/no such table/.test((error as Error).message)) throw new Error(missingTableMessage(path));
      throw error;
    }
    const insertAll = this.#db.transaction((jobs: readonly NewJob[]) =>
      jobs.map((job) => {
        const row = this.#insert.get(job.kind, JSON.stringify(job.payload ?? null));
        if (!row) throw new Error(`inserting a ${job.kind} job returned no id`);
        return Number(row.id);
      }),
    );
    this.#insertAll = (jobs) => insertAll.immediate(jobs);
  }

  /** See {@link Outbox.insertJobs}. */
  async insertJobs(jobs: readonly NewJob[]): Promise<number[]> {
    return this.#insertAll(jobs);
  }

  /** See {@link Outbox.close}. */
  async close(): Promise<void> {
    this.#db.close();
  }
}

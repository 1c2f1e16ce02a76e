import Database from 'better-sqlite3';
import type { BenchPayload } from '../bench-job.js';
import { enqueueMany } from '@nudge/client';
import { idRangeOf, type IdRange, type NudgeDatabase } from './nudge-database.js';

/** How long the bench's writes wait for the server's write lock, in ms. */
const BUSY_TIMEOUT_MS = 10_000;

/** {@link NudgeDatabase} on the SQLite file the server uses (WAL, so both can work at once). */
export class SqliteNudgeDatabase implements NudgeDatabase {
  readonly #db: Database.Database;
  readonly #insert: Database.Statement<[string, string], { id: number }>;
  readonly #countSucceeded: Database.Statement<[number, number], { n: number }>;

  /** Opens `path`, which the server has already created and migrated. */
  constructor(path: string) {
    this.#db = new Database(path);
    this.#db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    this.#insert = this.#db.prepare(
      'INSERT INTO nudge_jobs (kind, payload) SELECT ?, value FROM json_each(?) RETURNING id',
    );
    this.#countSucceeded = this.#db.prepare(
      "SELECT count(*) AS n FROM nudge_jobs WHERE id BETWEEN ? AND ? AND status = 'SUCCEEDED'",
    );
  }

  async insertJobs(kind: string, payloads: readonly BenchPayload[]): Promise<IdRange> {
    const ids = this.#insert.all(kind, JSON.stringify(payloads)).map((row) => row.id);
    if (ids.length === 0) throw new Error('the INSERT returned no row');
    // SQLite hands out ascending rowids within one statement.
    return { first: ids[0] ?? 0, last: ids[ids.length - 1] ?? 0 };
  }

  async enqueueJobs(kind: string, payloads: readonly BenchPayload[]): Promise<IdRange> {
    return idRangeOf(
      await enqueueMany<Record<string, BenchPayload>>(
        this.#db,
        payloads.map((payload) => ({ kind, payload })),
      ),
    );
  }

  async countSucceeded(range: IdRange): Promise<number> {
    return this.#countSucceeded.get(range.first, range.last)?.n ?? 0;
  }

  async close(): Promise<void> {
    this.#db.close();
  }
}

import pg from 'pg';
import { missingTableMessage, type NewJob, type Outbox } from './outbox.js';

/** PostgreSQL's code for "relation does not exist". */
const UNDEFINED_TABLE = '42P01';

/**
 * An {@link Outbox} on PostgreSQL: one client, each batch inside `BEGIN` … `COMMIT` (rolled back
 * on any error), with the payload sent as JSON text into the `jsonb` column.
 */
export class PostgresOutbox implements Outbox {
  readonly #client: pg.Client;
  readonly #url: URL;
  #connected: Promise<unknown> | undefined;

  /** Connects lazily, on the first insert. */
  constructor(connectionString: string) {
    this.#client = new pg.Client({ connectionString });
    this.#url = new URL(connectionString);
  }

  /** See {@link Outbox.insertJobs}. */
  async insertJobs(jobs: readonly NewJob[]): Promise<number[]> {
    this.#connected ??= this.#client.connect();
    await this.#connected;
    await this.#client.query('BEGIN');
    try {
      const ids: number[] = [];
      for (const job of jobs) {
        const { rows } = await this.#client.query<{ id: string }>(
          'INSERT INTO nudge_jobs (kind, payload) VALUES ($1, $2::jsonb) RETURNING id',
          [job.kind, JSON.stringify(job.payload ?? null)],
        );
        ids.push(Number(rows[0]?.id));
      }
      await this.#client.query('COMMIT');
      return ids;
    } catch (error) {
      await this.#client.query('ROLLBACK').catch(() => undefined);
      if ((error as { code?: unknown }).code === UNDEFINED_TABLE) {
        throw new Error(missingTableMessage(`database ${this.#url.pathname.slice(1)} on ${this.#url.host}`));
      }
      throw error;
    }
  }

  /** See {@link Outbox.close}. */
  async close(): Promise<void> {
    if (this.#connected) await this.#client.end();
  }
}

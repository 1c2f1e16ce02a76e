import pg from 'pg';
import type { BenchPayload } from '../bench-job.js';
import { enqueueMany } from '@nudge/client';
import { idRangeOf, type IdRange, type NudgeDatabase } from './nudge-database.js';

const INSERT = `
WITH inserted AS (
  INSERT INTO nudge_jobs (kind, payload)
  SELECT $1, value FROM jsonb_array_elements($2::jsonb)
  RETURNING id
)
SELECT min(id)::float8 AS first, max(id)::float8 AS last FROM inserted`;

const COUNT_SUCCEEDED = `
SELECT count(*)::float8 AS n FROM nudge_jobs WHERE id BETWEEN $1 AND $2 AND status = 'SUCCEEDED'`;

/**
 * {@link NudgeDatabase} on PostgreSQL, through its own `pg` pool of 10 connections (node-postgres's
 * default), as a producer's would be: the steady scenario keeps many single enqueues in flight.
 */
export class PgNudgeDatabase implements NudgeDatabase {
  readonly #pool: pg.Pool;

  constructor(databaseUrl: string) {
    this.#pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  }

  async insertJobs(kind: string, payloads: readonly BenchPayload[]): Promise<IdRange> {
    const { rows } = await this.#pool.query<{ first: number; last: number }>(INSERT, [
      kind,
      JSON.stringify(payloads),
    ]);
    const row = rows[0];
    if (!row) throw new Error('the INSERT returned no row');
    return { first: row.first, last: row.last };
  }

  async enqueueJobs(kind: string, payloads: readonly BenchPayload[]): Promise<IdRange> {
    return idRangeOf(
      await enqueueMany<Record<string, BenchPayload>>(
        this.#pool,
        payloads.map((payload) => ({ kind, payload })),
      ),
    );
  }

  async countSucceeded(range: IdRange): Promise<number> {
    const { rows } = await this.#pool.query<{ n: number }>(COUNT_SUCCEEDED, [range.first, range.last]);
    return rows[0]?.n ?? 0;
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }
}

import type pg from 'pg';
import { Kysely, PostgresDialect, sql, type Generated, type Insertable } from 'kysely';
import type { Job, JobStatus, JsonValue } from '@nudge/core';
import type {
  ClaimInput,
  CompleteInput,
  EnqueueInput,
  FailInput,
  FailOutcome,
  JobLease,
  SchemaState,
  Store,
  StoreCapabilities,
  SweepInput,
  SweepResult,
} from '../store.js';
import { toStatusCounts } from '../count-by-status.js';
import { pgClaim } from './pg-claim.js';
import { pgComplete } from './pg-complete.js';
import { pgFail } from './pg-fail.js';
import { pgHeartbeat } from './pg-heartbeat.js';
import { migratePostgres, postgresSchemaState } from './pg-migrate.js';
import { createPgPool } from './pg-pool.js';
import { pgRelease } from './pg-release.js';
import { pgRowToJob, type PgJobRow } from './pg-row.js';
import { pgSweep } from './pg-sweep.js';

interface PgSchema {
  nudge_jobs: Omit<PgJobRow, 'id' | 'payload'> & { id: Generated<number>; payload: string | JsonValue };
}

// Rows per INSERT: 5 columns each stays far below PostgreSQL's 65,535 bind parameters.
const INSERT_CHUNK = 1000;

function toRow(input: EnqueueInput): Insertable<PgSchema['nudge_jobs']> {
  const row: Partial<Insertable<PgSchema['nudge_jobs']>> = { kind: input.kind };
  // jsonb parameters go as JSON text: node-postgres would send a JS array as a PostgreSQL array.
  if (input.payload !== undefined) row.payload = JSON.stringify(input.payload);
  if (input.priority !== undefined) row.priority = input.priority;
  if (input.runAt !== undefined) row.run_at = input.runAt;
  if (input.maxAttempts !== undefined) row.max_attempts = input.maxAttempts;
  return row as Insertable<PgSchema['nudge_jobs']>;
}

/** Options for {@link PostgresStore}. */
export interface PostgresStoreOptions {
  /** Most connections this store opens. @defaultValue 10 */
  readonly poolSize?: number;
}

/**
 * The PostgreSQL store: many instances on many hosts share one database. Claims use
 * `FOR UPDATE SKIP LOCKED`; batch writes go in one statement each through `unnest`.
 */
export class PostgresStore implements Store {
  readonly dialect = 'postgres' as const;
  readonly capabilities: StoreCapabilities = {
    supportsSkipLocked: true,
    supportsListen: true,
    supportsManyHosts: true,
  };

  readonly #pool: pg.Pool;
  readonly #kysely: Kysely<PgSchema>;

  /** Connects lazily to `connectionString` (`postgres://…`); call {@link migrate} before use. */
  constructor(connectionString: string, options: PostgresStoreOptions = {}) {
    this.#pool = createPgPool(connectionString, options.poolSize);
    this.#kysely = new Kysely<PgSchema>({ dialect: new PostgresDialect({ pool: this.#pool }) });
  }

  async migrate(): Promise<number[]> {
    return migratePostgres(this.#pool);
  }

  async schemaState(): Promise<SchemaState> {
    return postgresSchemaState(this.#pool);
  }

  async ping(): Promise<void> {
    await sql`SELECT 1`.execute(this.#kysely);
  }

  async now(): Promise<Date> {
    const { rows } = await this.#pool.query<{ now: Date }>('SELECT now() AS now');
    const row = rows[0];
    if (!row) throw new Error('SELECT now() returned no row');
    return row.now;
  }

  async enqueue(input: EnqueueInput): Promise<Job> {
    const row = await this.#kysely
      .insertInto('nudge_jobs')
      .values(toRow(input))
      .returningAll()
      .executeTakeFirstOrThrow();
    return pgRowToJob(row);
  }

  async enqueueMany(inputs: readonly EnqueueInput[]): Promise<Job[]> {
    if (inputs.length === 0) return [];
    const rows = await this.#kysely.transaction().execute(async (trx) => {
      const inserted: PgJobRow[] = [];
      for (let start = 0; start < inputs.length; start += INSERT_CHUNK) {
        const chunk = inputs.slice(start, start + INSERT_CHUNK).map(toRow);
        const batch = await trx.insertInto('nudge_jobs').values(chunk).returningAll().execute();
        inserted.push(...(batch as PgJobRow[]));
      }
      return inserted;
    });
    // Identity values ascend in VALUES order within one transaction.
    return rows.sort((a, b) => a.id - b.id).map(pgRowToJob);
  }

  async getJob(id: number): Promise<Job | undefined> {
    const row = await this.#kysely
      .selectFrom('nudge_jobs')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row && pgRowToJob(row);
  }

  async countByStatus(): Promise<Record<JobStatus, number>> {
    const rows = await this.#kysely
      .selectFrom('nudge_jobs')
      .select(['status', (eb) => eb.fn.countAll<number>().as('count')])
      .groupBy('status')
      .execute();
    return toStatusCounts(rows);
  }

  async claim(input: ClaimInput): Promise<Job[]> {
    return pgClaim(this.#pool, input);
  }

  async heartbeat(leases: readonly JobLease[], leaseMs: number, now?: Date): Promise<JobLease[]> {
    return pgHeartbeat(this.#pool, leases, leaseMs, now);
  }

  async complete(items: readonly CompleteInput[], now?: Date): Promise<JobLease[]> {
    return pgComplete(this.#pool, items, now);
  }

  async fail(items: readonly FailInput[], now?: Date): Promise<FailOutcome[]> {
    return pgFail(this.#pool, items, now);
  }

  async release(leases: readonly JobLease[], now?: Date): Promise<JobLease[]> {
    return pgRelease(this.#pool, leases, now);
  }

  async sweepExpired(input: SweepInput): Promise<SweepResult> {
    return pgSweep(this.#pool, input);
  }

  async close(): Promise<void> {
    // Destroying Kysely ends the shared pool.
    await this.#kysely.destroy();
  }
}

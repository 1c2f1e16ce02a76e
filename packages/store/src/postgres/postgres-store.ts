import type pg from 'pg';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { silentLogger, type Job, type JobStatus, type Logger, type TerminalStatus } from '@nudge/core';
import type {
  PruneInput,
  ScheduleAdvance,
  ScheduleRegistration,
  ScheduleState,
  ActivityBucket,
  ActivityQuery,
  ClaimInput,
  ClaimedJob,
  CompleteInput,
  EnqueuedJob,
  EnqueueInput,
  FailInput,
  FailOutcome,
  InstanceInfo,
  InstanceInput,
  JobCommandResult,
  JobLease,
  ListInstancesInput,
  ListJobsQuery,
  NewJobsHandlers,
  NewJobsListener,
  ProgressInput,
  PromoteInput,
  PromoteResult,
  QueueState,
  SchemaState,
  SelfClaimInput,
  StatsInput,
  Store,
  StoreCapabilities,
  StoreStats,
  SweepInput,
  SweepResult,
  UnhandledKindsInput,
  UnhandledKindsResult,
} from '../store.js';
import { toStatusCounts } from '../count-by-status.js';
import { assertStorableFollowUps, hasFollowUps } from '../follow-ups.js';
import { pgActivity } from './pg-activity.js';
import { pgFinishedKinds, pgPruneFinished, pgReclaimSpace } from './pg-retention.js';
import { pgAdvanceSchedule, pgListSchedules, pgRegisterSchedules } from './pg-schedules.js';
import { pgClaim } from './pg-claim.js';
import { pgComplete } from './pg-complete.js';
import { pgEnqueueClaimed } from './pg-enqueue-claimed.js';
import { pgEnqueueMany, pgEnqueueOne, type PgSchema } from './pg-enqueue.js';
import { PgJobListener, type PgJobListenerOptions } from './pg-job-listener.js';
import {
  assertStorableFilter,
  assertStorableInput,
  assertStorableInputs,
  storableFailures,
} from '../storable-input.js';
import { pgFail } from './pg-fail.js';
import { pgCancelJob, pgRetryJob } from './pg-job-commands.js';
import { pgListQueues, pgSetQueuePaused } from './pg-queues.js';
import { pgHeartbeat } from './pg-heartbeat.js';
import {
  pgListInstances,
  pgPruneInstances,
  pgRegisterInstance,
  pgRemoveInstance,
  pgTouchInstance,
} from './pg-instances.js';
import { pgStats } from './pg-stats.js';
import { migratePostgres, postgresSchemaState } from './pg-migrate.js';
import { createPgPool } from './pg-pool.js';
import { pgSetProgress } from './pg-progress.js';
import { pgPromote } from './pg-promote.js';
import { pgRelease } from './pg-release.js';
import { pgRowToJob } from './pg-row.js';
import { pgSweep } from './pg-sweep.js';
import { pgFailUnhandledKinds } from './pg-unhandled-kinds.js';

/** Options for {@link PostgresStore}. */
export interface PostgresStoreOptions {
  /** Most connections this store opens. @defaultValue 10 */
  readonly poolSize?: number;
  /** Longest wait for a new connection, in ms. @defaultValue 5000 */
  readonly connectTimeoutMs?: number;
  /**
   * Longest a query may take, in ms, on the server (`statement_timeout`) and on the client (an
   * answer that never comes). @defaultValue 10000
   */
  readonly queryTimeoutMs?: number;
  /** Where connection errors go. @defaultValue silent */
  readonly logger?: Logger;
}

/**
 * The PostgreSQL store: many instances on many hosts share one database. Claims use
 * `FOR UPDATE SKIP LOCKED`; batch writes go in one statement each.
 *
 * Enqueues, claims, sweeps and promotions commit durably. Outcomes (complete, fail, release) and
 * heartbeats go through connections with `synchronous_commit = off`: their commit does not wait
 * for the disk (PostgreSQL flushes it within a few hundred ms). Losing one in a database crash is
 * harmless: the row is still `RUNNING` under the attempt's version, so the sweep gives the job
 * another attempt once the lease expires (at-least-once, as after any crash), and no version is
 * ever reused, since only durable writes bump it. In exchange, finishing a job costs no disk
 * flush, and enqueues and claims do not queue behind outcome flushes.
 */
export class PostgresStore implements Store {
  readonly dialect = 'postgres' as const;
  readonly capabilities: StoreCapabilities = {
    supportsSkipLocked: true,
    supportsListen: true,
    supportsManyHosts: true,
  };

  readonly #pool: pg.Pool;
  /** Connections whose commits do not wait for the disk: outcome writes and heartbeats. */
  readonly #outcomes: pg.Pool;
  readonly #kysely: Kysely<PgSchema>;
  readonly #connectionString: string;
  readonly #listenerOptions: PgJobListenerOptions;
  #closing: Promise<void> | undefined;

  /** Connects lazily to `connectionString` (`postgres://…`); call {@link migrate} before use. */
  constructor(connectionString: string, options: PostgresStoreOptions = {}) {
    const poolOptions = {
      max: options.poolSize ?? 10,
      connectTimeoutMs: options.connectTimeoutMs ?? 5000,
      queryTimeoutMs: options.queryTimeoutMs ?? 10_000,
      logger: options.logger ?? silentLogger,
    };
    this.#pool = createPgPool(connectionString, poolOptions);
    this.#outcomes = createPgPool(connectionString, { ...poolOptions, max: 3, durableCommits: false });
    this.#kysely = new Kysely<PgSchema>({ dialect: new PostgresDialect({ pool: this.#pool }) });
    this.#connectionString = connectionString;
    this.#listenerOptions = { connectTimeoutMs: poolOptions.connectTimeoutMs, logger: poolOptions.logger };
  }

  listenForNewJobs(handlers: NewJobsHandlers): NewJobsListener {
    return new PgJobListener(this.#connectionString, handlers, this.#listenerOptions);
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

  async enqueue(input: EnqueueInput): Promise<EnqueuedJob> {
    assertStorableInput(input);
    return pgEnqueueOne(this.#kysely, input);
  }

  async enqueueMany(inputs: readonly EnqueueInput[]): Promise<EnqueuedJob[]> {
    if (inputs.length === 0) return [];
    assertStorableInputs(inputs);
    return pgEnqueueMany(this.#kysely, inputs);
  }

  async enqueueAndClaim(input: EnqueueInput, claim: SelfClaimInput): Promise<EnqueuedJob> {
    assertStorableInput(input);
    return pgEnqueueClaimed(this.#pool, input, claim);
  }

  async getJob(id: number): Promise<Job | undefined> {
    const row = await this.#kysely
      .selectFrom('nudge_jobs')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row && pgRowToJob(row);
  }
  async listJobs(query: ListJobsQuery): Promise<Job[]> {
    assertStorableFilter(query);
    let select = this.#kysely.selectFrom('nudge_jobs').selectAll().orderBy('id', 'desc').limit(query.limit);
    if (query.ids) {
      if (query.ids.length === 0) return [];
      select = select.where('id', 'in', [...query.ids]);
    } else {
      if (query.status !== undefined) select = select.where('status', '=', query.status);
      if (query.kind !== undefined) select = select.where('kind', '=', query.kind);
      if (query.queue !== undefined) select = select.where('queue', '=', query.queue);
      if (query.beforeId !== undefined) select = select.where('id', '<', query.beforeId);
    }
    return (await select.execute()).map(pgRowToJob);
  }

  async countByStatus(): Promise<Record<JobStatus, number>> {
    const rows = await this.#kysely
      .selectFrom('nudge_jobs')
      .select(['status', (eb) => eb.fn.countAll<number>().as('count')])
      .groupBy('status')
      .execute();
    return toStatusCounts(rows);
  }

  async activity(query: ActivityQuery): Promise<ActivityBucket[]> {
    return pgActivity(this.#pool, query);
  }

  async cancelJob(id: number, now?: Date): Promise<JobCommandResult> {
    return pgCancelJob(this.#pool, id, now);
  }

  async retryJob(id: number, now?: Date): Promise<JobCommandResult> {
    return pgRetryJob(this.#pool, id, now);
  }

  async setQueuePaused(name: string, paused: boolean): Promise<QueueState> {
    return pgSetQueuePaused(this.#pool, name, paused);
  }

  async listQueues(): Promise<QueueState[]> {
    return pgListQueues(this.#pool);
  }

  async claim(input: ClaimInput): Promise<ClaimedJob[]> {
    return pgClaim(this.#pool, input);
  }

  async heartbeat(leases: readonly JobLease[], leaseMs: number, now?: Date): Promise<JobLease[]> {
    return pgHeartbeat(this.#outcomes, leases, leaseMs, now);
  }

  async complete(items: readonly CompleteInput[], now?: Date): Promise<JobLease[]> {
    if (hasFollowUps(items)) assertStorableFollowUps(items);
    return pgComplete(this.#outcomes, items, now);
  }

  async setProgress(items: readonly ProgressInput[]): Promise<JobLease[]> {
    return pgSetProgress(this.#outcomes, items);
  }

  async fail(items: readonly FailInput[], now?: Date): Promise<FailOutcome[]> {
    return pgFail(this.#outcomes, storableFailures(items), now);
  }

  async release(leases: readonly JobLease[], now?: Date): Promise<JobLease[]> {
    return pgRelease(this.#outcomes, leases, now);
  }

  async sweepExpired(input: SweepInput): Promise<SweepResult> {
    return pgSweep(this.#pool, input);
  }

  async promoteScheduled(input?: PromoteInput): Promise<PromoteResult> {
    return pgPromote(this.#pool, input);
  }

  async registerInstance(input: InstanceInput, now?: Date): Promise<void> {
    return pgRegisterInstance(this.#pool, input, now);
  }

  async touchInstance(id: string, now?: Date): Promise<boolean> {
    return pgTouchInstance(this.#pool, id, now);
  }

  async removeInstance(id: string): Promise<void> {
    return pgRemoveInstance(this.#pool, id);
  }

  async listInstances(input: ListInstancesInput): Promise<InstanceInfo[]> {
    return pgListInstances(this.#pool, input);
  }

  async pruneInstances(notSeenForMs: number, now?: Date): Promise<number> {
    return pgPruneInstances(this.#pool, notSeenForMs, now);
  }

  async stats(input: StatsInput): Promise<StoreStats> {
    return pgStats(this.#pool, input);
  }

  async finishedKinds(status: TerminalStatus): Promise<string[]> {
    return pgFinishedKinds(this.#pool, status);
  }

  async pruneFinished(input: PruneInput): Promise<number> {
    return pgPruneFinished(this.#pool, input);
  }

  async registerSchedules(schedules: readonly ScheduleRegistration[], now?: Date): Promise<ScheduleState[]> {
    return pgRegisterSchedules(this.#pool, schedules, now);
  }

  async advanceSchedule(input: ScheduleAdvance): Promise<void> {
    await pgAdvanceSchedule(this.#pool, input);
  }

  async listSchedules(): Promise<ScheduleState[]> {
    return pgListSchedules(this.#pool);
  }

  async reclaimSpace(): Promise<void> {
    await pgReclaimSpace(this.#pool);
  }

  async failUnhandledKinds(input: UnhandledKindsInput): Promise<UnhandledKindsResult> {
    return pgFailUnhandledKinds(this.#pool, input);
  }

  close(): Promise<void> {
    // Idempotent, like the SQLite store's: a second `end()` of a pg pool throws.
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    // Destroying Kysely ends the shared pool, but only when Kysely ran a query (its driver takes
    // the pool on first use): a store used only through raw SQL would keep its connections open.
    await Promise.all([this.#kysely.destroy(), this.#outcomes.end()]);
    if (!this.#pool.ended) await this.#pool.end();
  }
}

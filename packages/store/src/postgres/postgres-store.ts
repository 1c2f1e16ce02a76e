import type pg from 'pg';
import { Kysely, PostgresDialect, sql } from 'kysely';
import {
  silentLogger,
  type Enqueuer,
  type Job,
  type JsonValue,
  type JobStatus,
  type Logger,
} from '@nudge/core';
import type {
  BulkCommandResult,
  CancelJobsFilter,
  RetryJobsFilter,
  RetrySteps,
  FinishedKind,
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
  StepRecordInput,
  SuspendInput,
  SuspendOutcome,
  ListInstancesInput,
  ListDependentsQuery,
  ListJobsQuery,
  ListQueuesQuery,
  NewJobsHandlers,
  NewJobsListener,
  ProgressInput,
  JobLogAppend,
  JobLogAppended,
  JobLogCaps,
  JobLogPage,
  JobLogQuery,
  PromoteInput,
  PromoteResult,
  QueueLimitsPatch,
  QueueState,
  SchemaState,
  SelfClaimInput,
  StatsInput,
  Store,
  StoreCapabilities,
  StoreStats,
  JobStepsRead,
  SentSignal,
  SignalInput,
  SweepInput,
  SweepResult,
  UnhandledKindsInput,
  UnhandledKindsResult,
} from '../store.js';
import {
  selectDependencyOutcomes,
  selectDependentRows,
  selectJobRow,
  selectJobRows,
  selectStatusCounts,
} from '../job-reads.js';
import type { DependencyOutcome, DependencyOutcomeOptions } from '../read-types.js';
import { withDependencyOutcomes } from '../claimed-dependencies.js';
import { assertStorableFollowUps, hasFollowUps } from '../follow-ups.js';
import { pgActivity } from './pg-activity.js';
import { pgFinishedKinds, pgPruneFinished, pgReclaimSpace } from './pg-retention.js';
import { pgAdvanceSchedule, pgListSchedules, pgRegisterSchedules } from './pg-schedules.js';
import { pgClaim } from './pg-claim.js';
import { LimitedQueueHint } from './pg-limited-hint.js';
import { pgComplete } from './pg-complete.js';
import { enqueueRoute } from '../enqueue-route.js';
import { withEnqueuer } from '../sql/index.js';
import { pgEnqueueClaimed } from './pg-enqueue-claimed.js';
import { pgEnqueueMany, pgEnqueueOne, type PgSchema } from './pg-enqueue.js';
import { PgJobListener, type PgJobListenerOptions } from './pg-job-listener.js';
import { assertStorableInput, assertStorableInputs, storableFailures } from '../storable-input.js';
import { pgFail } from './pg-fail.js';
import { pgCancelJob, pgRetryJob } from './pg-job-commands.js';
import { pgRetryJobs } from './pg-bulk-retry.js';
import { pgCancelJobs } from './pg-bulk-cancel.js';
import { pgListQueues, pgSetQueueLimits, pgSetQueuePaused } from './pg-queues.js';
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
import { PgConnections, type PgConnectionMode } from './pg-connections.js';
import { pgSetProgress } from './pg-progress.js';
import { pgPromote } from './pg-promote.js';
import { pgRelease } from './pg-release.js';
import { pgRecordStep, pgSuspend } from './pg-steps.js';
import { pgRowToJob, type PgJobRow } from './pg-row.js';
import { pgSweep } from './pg-sweep.js';
import { pgFailUnhandledKinds } from './pg-unhandled-kinds.js';
import {
  IsolatedWrites,
  isolatedWrite,
  writeIsolating,
  type IsolatedWriteListener,
  type IsolatedWriteOperation,
} from '../isolated-writes.js';
import { pgNoteIsolated } from './pg-isolating.js';
import { pgSendSignal } from './pg-signals.js';
import { pgJobSteps } from './pg-step-reads.js';
import { pgAppendJobLogs, pgReadJobLogs } from './pg-job-logs.js';

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
  /** Where connection errors go, and the one line saying a pooler was found. @defaultValue silent */
  readonly logger?: Logger;
  /**
   * Named prepared statements (parsed once per connection). `false` declares a transaction
   * pooler in between (PgBouncer in `pool_mode = transaction` before 1.21, and the managed poolers
   * that behave like it): no prepared statements and no session settings. Unset: on, unless a
   * probe at first use finds a pooler (see `probePooler`).
   * @defaultValue undefined (probe)
   */
  readonly preparedStatements?: boolean;
  /**
   * A direct connection to the same database for `LISTEN` (a session a transaction pooler cannot
   * hold). Unset: `LISTEN` uses `connectionString`, or stays off behind a pooler.
   */
  readonly listenUrl?: string;
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
  /** The main pool (durable commits) and the outcome pool, opened on first use. */
  readonly #db: PgConnections;
  readonly #kysely: Kysely<PgSchema>;
  readonly #listenerOptions: PgJobListenerOptions;
  /** The limited queues the last claim saw ready, to lock in the next one. */
  readonly #limitedHint = new LimitedQueueHint();
  readonly #isolated: IsolatedWrites;
  /** Where `LISTEN` connects, once the first use has settled the connection mode. */
  #listenUrl: string | undefined;
  #closing: Promise<void> | undefined;

  /** Connects lazily to `connectionString` (`postgres://…`); call {@link migrate} before use. */
  constructor(connectionString: string, options: PostgresStoreOptions = {}) {
    const logger = options.logger ?? silentLogger;
    this.#isolated = new IsolatedWrites(logger);
    const connectTimeoutMs = options.connectTimeoutMs ?? 5000;
    this.#db = new PgConnections(connectionString, {
      max: options.poolSize ?? 10,
      connectTimeoutMs,
      queryTimeoutMs: options.queryTimeoutMs ?? 10_000,
      logger,
      preparedStatements: options.preparedStatements,
      listenUrl: options.listenUrl,
    });
    this.#kysely = new Kysely<PgSchema>({ dialect: new PostgresDialect({ pool: () => this.#db.main() }) });
    this.#listenUrl =
      options.listenUrl ?? (options.preparedStatements === false ? undefined : connectionString);
    this.#listenerOptions = { connectTimeoutMs, logger };
  }

  /**
   * `supportsListen` is false behind a transaction pooler without a `listenUrl`; until the first
   * query has settled how the server is reached, it says what the options alone allow.
   */
  get capabilities(): StoreCapabilities {
    return {
      supportsSkipLocked: true,
      supportsListen: this.#listenUrl !== undefined,
      supportsManyHosts: true,
    };
  }

  /**
   * Settles how the server is reached (the probe of `PgConnections`) and says so: whether a
   * transaction pooler sits in between, whether statements are prepared, and whether `LISTEN` can
   * work. Called by {@link migrate} and {@link schemaState}, so a started service knows.
   * @throws Error when the database cannot be reached
   */
  async connectionMode(): Promise<PgConnectionMode> {
    const { mode } = await this.#db.pools();
    this.#listenUrl = mode.listenUrl;
    return mode;
  }

  /** @throws Error when called behind a transaction pooler with no `listenUrl` (see {@link capabilities}) */
  listenForNewJobs(handlers: NewJobsHandlers): NewJobsListener {
    if (this.#listenUrl === undefined)
      throw new Error('LISTEN needs a direct connection: this store reaches PostgreSQL through a pooler');
    return new PgJobListener(this.#listenUrl, handlers, this.#listenerOptions);
  }

  onIsolatedWrite(listener: IsolatedWriteListener): () => void {
    return this.#isolated.listen(listener);
  }

  /**
   * Writes `items` through `write` on the outcome pool, isolating a row the database refuses
   * (see {@link Store.onIsolatedWrite}); the row is left as it was, with `last_error` saying why.
   */
  async #isolating<T extends { readonly id: number }, R>(
    operation: IsolatedWriteOperation,
    items: readonly T[],
    write: (pool: pg.Pool, part: readonly T[]) => Promise<R[]>,
  ): Promise<R[]> {
    if (items.length === 0) return [];
    const pool = await this.#db.outcomes();
    const { results, isolated } = await writeIsolating(items, (part) => write(pool, part));
    if (isolated.length > 0) {
      const writes = isolated.map(({ item, error }) => isolatedWrite(operation, item.id, error));
      await pgNoteIsolated(pool, writes, { inTransaction: false });
      this.#isolated.report(writes);
    }
    return results;
  }

  async migrate(): Promise<number[]> {
    await this.connectionMode();
    return migratePostgres(await this.#db.main());
  }

  async schemaState(): Promise<SchemaState> {
    await this.connectionMode();
    return postgresSchemaState(await this.#db.main());
  }

  async ping(): Promise<void> {
    await sql`SELECT 1`.execute(this.#kysely);
  }

  async now(): Promise<Date> {
    const { rows } = await (await this.#db.main()).query<{ now: Date }>('SELECT now() AS now');
    const row = rows[0];
    if (!row) throw new Error('SELECT now() returned no row');
    return row.now;
  }

  async enqueue(input: EnqueueInput, enqueuer?: Enqueuer): Promise<EnqueuedJob> {
    return this.#enqueueRouted(input, enqueuer, undefined);
  }

  async enqueueMany(inputs: readonly EnqueueInput[], enqueuer?: Enqueuer): Promise<EnqueuedJob[]> {
    if (inputs.length === 0) return [];
    assertStorableInputs(inputs);
    return pgEnqueueMany(await this.#db.main(), inputs, enqueuer);
  }

  async enqueueAndClaim(
    input: EnqueueInput,
    claim: SelfClaimInput,
    enqueuer?: Enqueuer,
  ): Promise<EnqueuedJob> {
    return this.#enqueueRouted(input, enqueuer, claim);
  }

  /** One job, by its {@link enqueueRoute}: the one place this store decides how a job is written. */
  async #enqueueRouted(
    input: EnqueueInput,
    enqueuer: Enqueuer | undefined,
    claim: SelfClaimInput | undefined,
  ): Promise<EnqueuedJob> {
    assertStorableInput(input);
    const pool = await this.#db.main();
    const route = enqueueRoute(input, claim);
    switch (route.path) {
      case 'steps': {
        const [job] = await pgEnqueueMany(pool, [input], enqueuer);
        if (!job) throw new Error('the enqueue plan returned no job');
        return job;
      }
      case 'claimed':
        return pgEnqueueClaimed(pool, withEnqueuer(input, enqueuer), route.claim);
      case 'plain':
        return pgEnqueueOne(pool, input, enqueuer);
    }
  }

  async getJob(id: number): Promise<Job | undefined> {
    const row = await selectJobRow<PgJobRow, PgSchema>(this.#kysely, id);
    return row && pgRowToJob(row);
  }

  async listJobs(query: ListJobsQuery): Promise<Job[]> {
    return (await selectJobRows<PgJobRow, PgSchema>(this.#kysely, query)).map(pgRowToJob);
  }

  async listDependents(query: ListDependentsQuery): Promise<Job[]> {
    const names = sql<boolean>`depends_on @> jsonb_build_array(${query.id}::bigint)`;
    return (await selectDependentRows<PgJobRow, PgSchema>(this.#kysely, query, names)).map(pgRowToJob);
  }

  async dependencyOutcomes(
    ids: readonly number[],
    options: DependencyOutcomeOptions,
  ): Promise<Map<number, DependencyOutcome>> {
    return selectDependencyOutcomes(this.#kysely, ids, options, (value) => value as JsonValue | null);
  }

  async countByStatus(): Promise<Record<JobStatus, number>> {
    return selectStatusCounts(this.#kysely);
  }

  async activity(query: ActivityQuery): Promise<ActivityBucket[]> {
    return pgActivity(await this.#db.main(), query);
  }

  async cancelJob(id: number, now?: Date): Promise<JobCommandResult> {
    return pgCancelJob(await this.#db.main(), id, now);
  }

  async retryJob(id: number, now?: Date, steps?: RetrySteps): Promise<JobCommandResult> {
    return pgRetryJob(await this.#db.main(), id, now, steps);
  }

  async retryJobs(filter: RetryJobsFilter, now?: Date): Promise<BulkCommandResult> {
    return pgRetryJobs(await this.#db.main(), filter, this.#isolated, now);
  }

  async cancelJobs(filter: CancelJobsFilter, now?: Date): Promise<BulkCommandResult> {
    return pgCancelJobs(await this.#db.main(), filter, this.#isolated, now);
  }

  async setQueuePaused(name: string, paused: boolean): Promise<QueueState> {
    return pgSetQueuePaused(await this.#db.main(), name, paused);
  }

  async setQueueLimits(name: string, patch: QueueLimitsPatch): Promise<QueueState> {
    return pgSetQueueLimits(await this.#db.main(), name, patch);
  }

  async listQueues(query?: ListQueuesQuery): Promise<QueueState[]> {
    return pgListQueues(await this.#db.main(), query);
  }

  async claim(input: ClaimInput): Promise<ClaimedJob[]> {
    const jobs = await pgClaim(await this.#db.claims(), input, this.#limitedHint);
    return withDependencyOutcomes(jobs, (ids, options) => this.dependencyOutcomes(ids, options));
  }

  async heartbeat(leases: readonly JobLease[], leaseMs: number, now?: Date): Promise<JobLease[]> {
    return this.#isolating('heartbeat', leases, (pool, part) => pgHeartbeat(pool, part, leaseMs, now));
  }

  async complete(items: readonly CompleteInput[], now?: Date): Promise<JobLease[]> {
    if (hasFollowUps(items)) assertStorableFollowUps(items);
    return this.#isolating('complete', items, (pool, part) => pgComplete(pool, part, now));
  }

  async setProgress(items: readonly ProgressInput[]): Promise<JobLease[]> {
    return this.#isolating('progress', items, (pool, part) => pgSetProgress(pool, part));
  }

  async fail(items: readonly FailInput[], now?: Date): Promise<FailOutcome[]> {
    return this.#isolating('fail', storableFailures(items), (pool, part) => pgFail(pool, part, now));
  }

  async release(leases: readonly JobLease[], now?: Date): Promise<JobLease[]> {
    return this.#isolating('release', leases, (pool, part) => pgRelease(pool, part, now));
  }
  async recordStep(input: StepRecordInput, now?: Date): Promise<boolean> {
    return pgRecordStep(await this.#db.main(), input, now);
  }

  async suspend(input: SuspendInput, now?: Date): Promise<SuspendOutcome | undefined> {
    return pgSuspend(await this.#db.main(), input, now);
  }

  async sweepExpired(input: SweepInput): Promise<SweepResult> {
    return pgSweep(await this.#db.main(), input, this.#isolated);
  }

  async promoteScheduled(input?: PromoteInput): Promise<PromoteResult> {
    return pgPromote(await this.#db.main(), input, this.#isolated);
  }

  async registerInstance(input: InstanceInput, now?: Date): Promise<void> {
    return pgRegisterInstance(await this.#db.main(), input, now);
  }

  async touchInstance(id: string, now?: Date): Promise<boolean> {
    return pgTouchInstance(await this.#db.main(), id, now);
  }

  async removeInstance(id: string): Promise<void> {
    return pgRemoveInstance(await this.#db.main(), id);
  }

  async listInstances(input: ListInstancesInput): Promise<InstanceInfo[]> {
    return pgListInstances(await this.#db.main(), input);
  }

  async pruneInstances(notSeenForMs: number, now?: Date): Promise<number> {
    return pgPruneInstances(await this.#db.main(), notSeenForMs, now);
  }

  async stats(input: StatsInput): Promise<StoreStats> {
    return pgStats(await this.#db.main(), input);
  }

  async finishedKinds(): Promise<FinishedKind[]> {
    return pgFinishedKinds(await this.#db.main());
  }

  async pruneFinished(input: PruneInput): Promise<number> {
    return pgPruneFinished(await this.#db.main(), input, this.#isolated);
  }

  async registerSchedules(schedules: readonly ScheduleRegistration[], now?: Date): Promise<ScheduleState[]> {
    return pgRegisterSchedules(await this.#db.main(), schedules, now);
  }

  async advanceSchedule(input: ScheduleAdvance): Promise<void> {
    await pgAdvanceSchedule(await this.#db.main(), input);
  }

  async listSchedules(): Promise<ScheduleState[]> {
    return pgListSchedules(await this.#db.main());
  }

  async reclaimSpace(): Promise<void> {
    await pgReclaimSpace(await this.#db.main());
  }

  async failUnhandledKinds(input: UnhandledKindsInput): Promise<UnhandledKindsResult> {
    return pgFailUnhandledKinds(await this.#db.main(), input, this.#isolated);
  }

  async sendSignal(input: SignalInput): Promise<SentSignal> {
    return pgSendSignal(await this.#db.main(), input);
  }

  async jobSteps(jobId: number): Promise<JobStepsRead> {
    return pgJobSteps(await this.#db.main(), jobId);
  }

  async appendJobLogs(appends: readonly JobLogAppend[], caps: JobLogCaps): Promise<JobLogAppended[]> {
    if (appends.length === 0) return [];
    // The main pool: log writes never hold a connection an outcome waits for.
    const pool = await this.#db.main();
    const { results, isolated } = await writeIsolating(appends, (part) => pgAppendJobLogs(pool, part, caps));
    this.#isolated.report(isolated.map(({ item, error }) => isolatedWrite('logs', item.id, error)));
    return results;
  }

  async readJobLogs(query: JobLogQuery): Promise<JobLogPage | undefined> {
    return pgReadJobLogs(await this.#db.main(), query);
  }

  close(): Promise<void> {
    // Idempotent, like the SQLite store's: a second `end()` of a pg pool throws.
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    // Destroying Kysely ends the main pool, but only when Kysely ran a query (its driver takes
    // the pool on first use); the connections end whichever pool is still open.
    await this.#kysely.destroy();
    await this.#db.close();
  }
}

import type Database from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import { retrySqliteBusy, silentLogger, type SqliteBusyRetryOptions } from '@nudge/core';
import type { Enqueuer, Job, JobStatus, JsonValue, Logger } from '@nudge/core';
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
  NewJobsHandlers,
  ListDependentsQuery,
  ListJobsQuery,
  ListQueuesQuery,
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
import { createSqliteActivity } from './sqlite-activity.js';
import { createSqliteClaim } from './sqlite-claim.js';
import { SqliteHeldQueues } from './sqlite-held-queues.js';
import { createSqliteComplete } from './sqlite-complete.js';
import { createSqliteEnqueue, sqliteKysely } from './sqlite-enqueue.js';
import { enqueueRoute } from '../enqueue-route.js';
import { withEnqueuer } from '../sql/index.js';
import { createSqliteEnqueueClaimed } from './sqlite-enqueue-claimed.js';
import { createSqliteFail } from './sqlite-fail.js';
import { createSqliteJobCommands } from './sqlite-job-commands.js';
import { createSqliteQueues } from './sqlite-queues.js';
import { createSqliteRetention } from './sqlite-retention.js';
import { createSqliteSchedules } from './sqlite-schedules.js';
import { createSqliteHeartbeat } from './sqlite-heartbeat.js';
import { createSqliteInstances } from './sqlite-instances.js';
import { migrateSqlite, sqliteSchemaState } from './sqlite-migrate.js';
import { sqliteRowToJob, type SqliteJobRow, type SqliteSchema } from './sqlite-row.js';
import { createSqliteProgress } from './sqlite-progress.js';
import { createSqliteAppendJobLogs, createSqliteReadJobLogs } from './sqlite-job-logs.js';
import { createSqlitePromote } from './sqlite-promote.js';
import { createSqliteRelease } from './sqlite-release.js';
import { createSqliteRecordStep, createSqliteSuspend } from './sqlite-steps.js';
import { createSqliteStats } from './sqlite-stats.js';
import { createSqliteSweep } from './sqlite-sweep.js';
import { createSqliteUnhandledKinds } from './sqlite-unhandled-kinds.js';
import { sqliteRetryJobs } from './sqlite-bulk-retry.js';
import { sqliteCancelJobs } from './sqlite-bulk-cancel.js';
import { openSqlite, type OpenSqliteOptions } from './open-sqlite.js';
import { SqliteChangeWatcher } from './sqlite-change-watcher.js';
import { createSqliteSendSignal } from './sqlite-signals.js';
import { createSqliteJobSteps } from './sqlite-step-reads.js';
import { assertStorableInput, assertStorableInputs, storableFailures } from '../storable-input.js';
import {
  IsolatedWrites,
  isolatedWrite,
  writeIsolating,
  type IsolatedWriteListener,
  type IsolatedWriteOperation,
} from '../isolated-writes.js';
import { sqliteNoteIsolated } from './sqlite-isolating.js';

/**
 * How long one call may wait for another process's lock inside SQLite's own busy handler, in ms.
 * That wait sleeps on the event loop's thread, so it is kept short; longer waits are taken on a
 * timer (pauses of about 1, 2, 4 … up to 16 ms) until the store's busy timeout.
 */
const SYNC_BUSY_WAIT_MS = 5;

/**
 * Time between two reads of `PRAGMA data_version` by {@link SqliteStore.listenForNewJobs}, in ms.
 * A job a process inserts without `POST /nudge` starts within about this long, where the claim
 * poll would take up to its interval (1 s, longer once an idle instance backs off). Four reads a
 * second cost about 25 µs of CPU and no page read (see {@link SqliteChangeWatcher}); the interval
 * also folds a busy producer's commits into at most four wakes a second, each a claim that takes
 * the file's one write lock. 250 ms is where the pickup stays well under the 1 s poll while the
 * reads stay too cheap to matter.
 */
const CHANGE_CHECK_INTERVAL_MS = 250;

/** Options for {@link SqliteStore}. */
export interface SqliteStoreOptions extends OpenSqliteOptions {
  /** Where the new-jobs listener logs a failed read and its recovery. @defaultValue silent */
  readonly logger?: Logger;
}

/**
 * The SQLite store: one file, one connection per store. Hot-path writes are hand-written,
 * prepared once, and run synchronously in `BEGIN IMMEDIATE` transactions. A call that finds the
 * file locked by another process is tried again on a timer until the busy timeout
 * (`busyTimeoutMs`) has passed, so the waiting process's event loop stays free.
 *
 * SQLite has no `LISTEN`: {@link listenForNewJobs} watches `PRAGMA data_version` on the store's
 * connection instead, every 250 ms, which changes only when another connection (a producer in
 * another process, another instance on the file) commits a change. A service that is the file's
 * only writer is never woken by it; a plain `INSERT` from another process is seen within 250 ms.
 */
export class SqliteStore implements Store {
  readonly dialect = 'sqlite' as const;
  readonly capabilities: StoreCapabilities = {
    supportsSkipLocked: false,
    supportsListen: true,
    supportsManyHosts: false,
  };

  readonly #db: Database.Database;
  readonly #kysely: Kysely<SqliteSchema>;
  #hot: ReturnType<typeof prepareHotPath> | undefined;
  /** Limited queues its claims leave out for a while (see {@link SqliteHeldQueues}). */
  readonly #held = new SqliteHeldQueues();
  #enqueue: ((inputs: readonly EnqueueInput[], enqueuer?: Enqueuer) => EnqueuedJob[]) | undefined;
  readonly #busyRetry: SqliteBusyRetryOptions;
  readonly #logger: Logger;
  readonly #isolated: IsolatedWrites;
  /** The signal sender and the steps reader, prepared on first use (after migration). */
  #signals: ReturnType<typeof createSqliteSignalParts> | undefined;

  /** Opens `filename` (created with its folder when missing); call {@link migrate} before use. */
  constructor(filename: string, options: SqliteStoreOptions = {}) {
    this.#busyRetry = { budgetMs: options.busyTimeoutMs ?? 5000, firstPauseMs: 1, maxPauseMs: 16 };
    this.#db = openSqlite(filename, { busyTimeoutMs: SYNC_BUSY_WAIT_MS });
    this.#kysely = sqliteKysely(this.#db);
    this.#logger = options.logger ?? silentLogger;
    this.#isolated = new IsolatedWrites(this.#logger);
  }

  onIsolatedWrite(listener: IsolatedWriteListener): () => void {
    return this.#isolated.listen(listener);
  }

  /**
   * Writes `items` through `write` (each part its own `IMMEDIATE` transaction), isolating a row
   * the database refuses (see {@link Store.onIsolatedWrite}); the row is left as it was, with
   * `last_error` saying why.
   */
  async #isolating<T extends { readonly id: number }, R>(
    operation: IsolatedWriteOperation,
    items: readonly T[],
    write: (part: readonly T[]) => R[],
  ): Promise<R[]> {
    if (items.length === 0) return [];
    const { results, isolated } = await writeIsolating(items, (part) => this.#busy(() => write(part)));
    if (isolated.length > 0) {
      const writes = isolated.map(({ item, error }) => isolatedWrite(operation, item.id, error));
      await this.#busy(() =>
        this.#db.transaction(() => sqliteNoteIsolated(this.#db, writes, { now: null })).immediate(),
      );
      this.#isolated.report(writes);
    }
    return results;
  }

  /**
   * Runs one call (one statement or one `IMMEDIATE` transaction, so a try that met `SQLITE_BUSY`
   * wrote nothing), trying it again on a timer while another process holds the file's lock.
   */
  #busy<T>(call: () => T | Promise<T>): Promise<T> {
    return retrySqliteBusy(call, this.#busyRetry);
  }

  // Statements are prepared after migration: preparing needs the table to exist.
  get #hotPath(): ReturnType<typeof prepareHotPath> {
    this.#hot ??= prepareHotPath(this.#db, this.#isolated, this.#held);
    return this.#hot;
  }

  /**
   * Calls `handlers.onWake` when another connection committed a change to the file (see
   * {@link SqliteChangeWatcher}): read on this store's one connection, the one its writes go
   * through, so the store's own writes never wake it. Stops when the store closes.
   */
  listenForNewJobs(handlers: NewJobsHandlers): SqliteChangeWatcher {
    return new SqliteChangeWatcher(this.#db, handlers, {
      intervalMs: CHANGE_CHECK_INTERVAL_MS,
      logger: this.#logger,
    });
  }

  async migrate(): Promise<number[]> {
    return this.#busy(() => migrateSqlite(this.#db));
  }

  async schemaState(): Promise<SchemaState> {
    return this.#busy(() => sqliteSchemaState(this.#db));
  }

  async ping(): Promise<void> {
    await this.#busy(() => sql`SELECT 1`.execute(this.#kysely));
  }

  async now(): Promise<Date> {
    const row = await this.#busy(
      () => this.#db.prepare(`SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now') AS now`).get() as { now: string },
    );
    return new Date(row.now);
  }

  async enqueue(input: EnqueueInput, enqueuer?: Enqueuer): Promise<EnqueuedJob> {
    return this.#enqueueRouted(input, enqueuer, undefined);
  }

  async enqueueMany(inputs: readonly EnqueueInput[], enqueuer?: Enqueuer): Promise<EnqueuedJob[]> {
    assertStorableInputs(inputs);
    const enqueue = (this.#enqueue ??= createSqliteEnqueue(this.#db));
    return this.#busy(() => enqueue(inputs, enqueuer));
  }

  async enqueueAndClaim(
    input: EnqueueInput,
    claim: SelfClaimInput,
    enqueuer?: Enqueuer,
  ): Promise<EnqueuedJob> {
    return this.#enqueueRouted(input, enqueuer, claim);
  }

  /**
   * One job, by its {@link enqueueRoute}: the one place this store decides how a job is written.
   * Every write here is one `BEGIN IMMEDIATE` transaction, so a plain job and one that takes
   * steps both run the enqueue plan.
   */
  async #enqueueRouted(
    input: EnqueueInput,
    enqueuer: Enqueuer | undefined,
    claim: SelfClaimInput | undefined,
  ): Promise<EnqueuedJob> {
    const route = enqueueRoute(input, claim);
    if (route.path === 'claimed') {
      assertStorableInput(input);
      const row = withEnqueuer(input, enqueuer);
      return this.#busy(() => this.#hotPath.enqueueClaimed(row, route.claim));
    }
    const [job] = await this.enqueueMany([input], enqueuer);
    if (!job) throw new Error('enqueue returned no job');
    return job;
  }

  async getJob(id: number): Promise<Job | undefined> {
    const row = await this.#busy(() => selectJobRow<SqliteJobRow, SqliteSchema>(this.#kysely, id));
    return row && sqliteRowToJob(row);
  }

  async listJobs(query: ListJobsQuery): Promise<Job[]> {
    const rows = await this.#busy(() => selectJobRows<SqliteJobRow, SqliteSchema>(this.#kysely, query));
    return rows.map(sqliteRowToJob);
  }

  async listDependents(query: ListDependentsQuery): Promise<Job[]> {
    const names = sql<boolean>`depends_on IS NOT NULL AND EXISTS (SELECT 1 FROM json_each(depends_on) WHERE value = ${query.id})`;
    const rows = await this.#busy(() =>
      selectDependentRows<SqliteJobRow, SqliteSchema>(this.#kysely, query, names),
    );
    return rows.map(sqliteRowToJob);
  }

  async dependencyOutcomes(
    ids: readonly number[],
    options: DependencyOutcomeOptions,
  ): Promise<Map<number, DependencyOutcome>> {
    return this.#busy(() =>
      selectDependencyOutcomes(this.#kysely, ids, options, (value) =>
        typeof value === 'string' ? (JSON.parse(value) as JsonValue) : null,
      ),
    );
  }

  async countByStatus(): Promise<Record<JobStatus, number>> {
    return this.#busy(() => selectStatusCounts(this.#kysely));
  }

  async activity(query: ActivityQuery): Promise<ActivityBucket[]> {
    return this.#busy(() => this.#hotPath.activity(query));
  }

  async cancelJob(id: number, now?: Date): Promise<JobCommandResult> {
    this.#held.forgetAll();
    return this.#busy(() => this.#hotPath.commands.cancel(id, now));
  }

  async retryJob(id: number, now?: Date, steps?: RetrySteps): Promise<JobCommandResult> {
    return this.#busy(() => this.#hotPath.commands.retry(id, now, steps));
  }

  async retryJobs(filter: RetryJobsFilter, now?: Date): Promise<BulkCommandResult> {
    return sqliteRetryJobs(this.#db, (call) => this.#busy(call), filter, this.#isolated, now);
  }

  async cancelJobs(filter: CancelJobsFilter, now?: Date): Promise<BulkCommandResult> {
    this.#held.forgetAll();
    return sqliteCancelJobs(this.#db, (call) => this.#busy(call), filter, this.#isolated, now);
  }

  async setQueuePaused(name: string, paused: boolean): Promise<QueueState> {
    return this.#busy(() => this.#hotPath.queues.setPaused(name, paused));
  }

  async setQueueLimits(name: string, patch: QueueLimitsPatch): Promise<QueueState> {
    this.#held.forgetAll();
    return this.#busy(() => this.#hotPath.queues.setLimits(name, patch));
  }

  async listQueues(query?: ListQueuesQuery): Promise<QueueState[]> {
    return this.#busy(() => this.#hotPath.queues.list(query));
  }

  async claim(input: ClaimInput): Promise<ClaimedJob[]> {
    const jobs = await this.#busy(() => this.#hotPath.claim(input));
    return withDependencyOutcomes(jobs, (ids, options) => this.dependencyOutcomes(ids, options));
  }

  async heartbeat(leases: readonly JobLease[], leaseMs: number, now?: Date): Promise<JobLease[]> {
    return this.#isolating('heartbeat', leases, (part) => this.#hotPath.heartbeat(part, leaseMs, now));
  }

  async complete(items: readonly CompleteInput[], now?: Date): Promise<JobLease[]> {
    if (hasFollowUps(items)) assertStorableFollowUps(items);
    const written = await this.#isolating('complete', items, (part) => this.#hotPath.complete(part, now));
    this.#held.ended(written.map((lease) => lease.id));
    return written;
  }

  async setProgress(items: readonly ProgressInput[]): Promise<JobLease[]> {
    return this.#isolating('progress', items, (part) => this.#hotPath.setProgress(part));
  }

  async fail(items: readonly FailInput[], now?: Date): Promise<FailOutcome[]> {
    const written = await this.#isolating('fail', storableFailures(items), (part) =>
      this.#hotPath.fail(part, now),
    );
    this.#held.ended(written.map((outcome) => outcome.id));
    return written;
  }

  async release(leases: readonly JobLease[], now?: Date): Promise<JobLease[]> {
    const written = await this.#isolating('release', leases, (part) => this.#hotPath.release(part, now));
    this.#held.ended(written.map((lease) => lease.id));
    return written;
  }
  async recordStep(input: StepRecordInput, now?: Date): Promise<boolean> {
    return this.#busy(() => this.#hotPath.recordStep(input, now));
  }

  async suspend(input: SuspendInput, now?: Date): Promise<SuspendOutcome | undefined> {
    const outcome = await this.#busy(() => this.#hotPath.suspend(input, now));
    if (outcome) this.#held.ended([outcome.id]);
    return outcome;
  }

  async sweepExpired(input: SweepInput): Promise<SweepResult> {
    const result = await this.#busy(() => this.#hotPath.sweep(input));
    // Only a sweep that freed room: an idle sweep every few seconds would undo every skip.
    if (result.requeued + result.failed > 0) this.#held.forgetAll();
    return result;
  }

  async promoteScheduled(input?: PromoteInput): Promise<PromoteResult> {
    return this.#busy(() => this.#hotPath.promote(input));
  }

  async registerInstance(input: InstanceInput, now?: Date): Promise<void> {
    await this.#busy(() => this.#hotPath.instances.register(input, now));
  }

  async touchInstance(id: string, now?: Date): Promise<boolean> {
    return this.#busy(() => this.#hotPath.instances.touch(id, now));
  }

  async removeInstance(id: string): Promise<void> {
    await this.#busy(() => this.#hotPath.instances.remove(id));
  }

  async listInstances(input: ListInstancesInput): Promise<InstanceInfo[]> {
    return this.#busy(() => this.#hotPath.instances.list(input));
  }

  async pruneInstances(notSeenForMs: number, now?: Date): Promise<number> {
    return this.#busy(() => this.#hotPath.instances.prune(notSeenForMs, now));
  }

  async stats(input: StatsInput): Promise<StoreStats> {
    return this.#busy(() => this.#hotPath.stats(input));
  }

  async finishedKinds(): Promise<FinishedKind[]> {
    return this.#busy(() => this.#hotPath.retention.finishedKinds());
  }

  async pruneFinished(input: PruneInput): Promise<number> {
    return this.#busy(() => this.#hotPath.retention.prune(input));
  }

  async registerSchedules(schedules: readonly ScheduleRegistration[], now?: Date): Promise<ScheduleState[]> {
    return this.#busy(() => this.#hotPath.schedules.register(schedules, now));
  }

  async advanceSchedule(input: ScheduleAdvance): Promise<void> {
    await this.#busy(() => this.#hotPath.schedules.advance(input));
  }

  async listSchedules(): Promise<ScheduleState[]> {
    return this.#busy(() => this.#hotPath.schedules.list());
  }

  async reclaimSpace(): Promise<void> {
    // Deleted rows' pages go to the file's free list and are reused by the next inserts.
  }

  async failUnhandledKinds(input: UnhandledKindsInput): Promise<UnhandledKindsResult> {
    return this.#busy(() => this.#hotPath.unhandledKinds(input));
  }

  async sendSignal(input: SignalInput): Promise<SentSignal> {
    const send = (this.#signals ??= createSqliteSignalParts(this.#db)).send;
    return this.#busy(() => send(input));
  }

  async jobSteps(jobId: number): Promise<JobStepsRead> {
    const read = (this.#signals ??= createSqliteSignalParts(this.#db)).steps;
    return this.#busy(() => read(jobId));
  }

  async appendJobLogs(appends: readonly JobLogAppend[], caps: JobLogCaps): Promise<JobLogAppended[]> {
    if (appends.length === 0) return [];
    const append = this.#hotPath.appendJobLogs;
    const { results, isolated } = await writeIsolating(appends, (part) =>
      this.#busy(() => append(part, caps)),
    );
    this.#isolated.report(isolated.map(({ item, error }) => isolatedWrite('logs', item.id, error)));
    return results;
  }

  async readJobLogs(query: JobLogQuery): Promise<JobLogPage | undefined> {
    const read = this.#hotPath.readJobLogs;
    return this.#busy(() => read(query));
  }

  async close(): Promise<void> {
    await this.#kysely.destroy();
    if (this.#db.open) this.#db.close();
  }
}

function prepareHotPath(db: Database.Database, isolated: IsolatedWrites, held: SqliteHeldQueues) {
  const instances = createSqliteInstances(db);
  return {
    claim: createSqliteClaim(db, held),
    heartbeat: createSqliteHeartbeat(db),
    complete: createSqliteComplete(db),
    fail: createSqliteFail(db),
    release: createSqliteRelease(db),
    recordStep: createSqliteRecordStep(db),
    suspend: createSqliteSuspend(db),
    setProgress: createSqliteProgress(db),
    appendJobLogs: createSqliteAppendJobLogs(db),
    readJobLogs: createSqliteReadJobLogs(db),
    sweep: createSqliteSweep(db, isolated),
    promote: createSqlitePromote(db, isolated),
    enqueueClaimed: createSqliteEnqueueClaimed(db),
    instances,
    stats: createSqliteStats(db, instances),
    unhandledKinds: createSqliteUnhandledKinds(db, isolated),
    commands: createSqliteJobCommands(db),
    activity: createSqliteActivity(db),
    queues: createSqliteQueues(db),
    retention: createSqliteRetention(db, isolated),
    schedules: createSqliteSchedules(db),
  };
}

/** The statements of `sendSignal` and `jobSteps`, prepared together on first use of either. */
function createSqliteSignalParts(db: Database.Database) {
  return { send: createSqliteSendSignal(db), steps: createSqliteJobSteps(db) };
}

import { EventEmitter } from 'node:events';
import type { BackoffOptions, Enqueuer, ExecutionClass } from '@nudge/core';
import type {
  BulkCommandResult,
  CancelJobsFilter,
  EnqueuedJob,
  EnqueueInput,
  JobCommandResult,
  RetryJobsFilter,
} from '@nudge/store';
import type { SafetyPoll } from './safety-poll.js';
import { enqueueBatch, selfClaimEnqueue } from './self-claim-enqueue.js';
import type { Claimer } from './claimer.js';
import type { TriggerCounts } from './claim-trigger.js';
import type { EngineEvents } from './engine-events.js';
import { resolveEngineOptions, type EngineOptions, type ResolvedEngineOptions } from './engine-options.js';
import type { Executor } from './executor.js';
import type { LeaseKeeper, HeartbeatResult } from './lease-keeper.js';
import type { OutcomeWriter } from './outcome-writer.js';
import type { ProgressWriter } from './progress-writer.js';
import type { Rescuer, RescueResult } from './rescuer.js';
import type { Pruner, PruneResult } from './pruner.js';
import type { CronScheduler, CronRunResult } from './cron-scheduler.js';
import type { ResolvedSchedule } from './cron-schedule.js';
import { checkSchedules } from './engine-schedules.js';
import { wireEngine } from './engine-wiring.js';
import type { Scheduler, ScheduleResult } from './scheduler.js';
import { shutdownEngine } from './shutdown.js';
import type { KindRegistry } from './kind-registry.js';
import { describeHandlers } from './threads/describe-handlers.js';
import type { KindInfo } from './handlers/handler.js';
import { startThreadPools } from './threads/start-thread-pools.js';
import type { ExecutionPool } from './threads/execution-pool.js';
import type { NewJobsWaker } from './new-jobs-waker.js';
import { jobLogFields } from './job-log-fields.js';
import type { UnhandledKindsFailer, UnhandledKindsRun } from './unhandled-kinds.js';

/** Slots of one execution class. */
export interface SlotCounts {
  readonly total: number;
  readonly free: number;
}

/**
 * Claims jobs into free worker-thread slots and records their outcomes. It composes one small
 * service per concern: the {@link Claimer} (one coalesced trigger path for the poll timer, nudges,
 * enqueues and freed slots), the {@link Executor} (thread pools per execution class, timeouts,
 * outcomes), the {@link OutcomeWriter}, the {@link LeaseKeeper} (heartbeats), the
 * {@link Rescuer} (expired leases), the {@link Scheduler} (due scheduled jobs), the
 * {@link Pruner} (retention) and the {@link UnhandledKindsFailer}. Each service's `runOnce` is exposed for tests and tools.
 *
 * Emits the events of {@link EngineEvents}.
 */
export class Engine extends EventEmitter<{ [K in keyof EngineEvents]: [EngineEvents[K]] }> {
  readonly options: ResolvedEngineOptions;
  readonly #kinds: ReadonlyMap<string, ExecutionClass>;
  readonly #registry: KindRegistry;
  readonly #kindsByClass: ReadonlyMap<ExecutionClass, readonly string[]>;
  readonly #executor: Executor;
  readonly #writer: OutcomeWriter;
  readonly #progress: ProgressWriter;
  readonly #claimer: Claimer;
  readonly #leaseKeeper: LeaseKeeper;
  readonly #rescuer: Rescuer;
  readonly #pruner: Pruner;
  readonly #cron: CronScheduler;
  readonly #scheduler: Scheduler;
  readonly #unhandled: UnhandledKindsFailer;
  readonly #waker: NewJobsWaker;
  readonly #safetyPoll: SafetyPoll;
  #started = false;
  #stopping: Promise<void> | undefined;

  private constructor(
    options: ResolvedEngineOptions,
    kinds: readonly KindInfo[],
    pools: Map<ExecutionClass, ExecutionPool>,
    schedules: readonly ResolvedSchedule[],
  ) {
    super();
    this.options = options;
    const services = wireEngine(options, kinds, pools, schedules, {
      emit: (name, value) => {
        (this.emit as (n: typeof name, v: typeof value) => boolean)(name, value);
      },
      on: (name, listener) => {
        (this.on as (n: typeof name, l: typeof listener) => this)(name, listener);
      },
      requestClaim: () => this.requestClaim(),
      enqueue: (input) => this.enqueue(input),
    });
    this.#registry = services.registry;
    this.#kinds = services.kinds;
    this.#kindsByClass = services.kindsByClass;
    this.#writer = services.writer;
    this.#progress = services.progress;
    this.#executor = services.executor;
    this.#claimer = services.claimer;
    this.#leaseKeeper = services.leaseKeeper;
    this.#rescuer = services.rescuer;
    this.#pruner = services.pruner;
    this.#cron = services.cron;
    this.#scheduler = services.scheduler;
    this.#unhandled = services.unhandled;
    this.#waker = services.waker;
    this.#safetyPoll = services.safetyPoll;
  }

  /**
   * Validates the options, loads the handler module to learn its kinds, and starts the threads of
   * each execution class that has kinds.
   * @throws RangeError when an option is out of range
   * @throws NudgeError with `option: 'schedules'` when a schedule of `schedules` is invalid, of a
   *   kind the handler module lacks, or named as one of the module's (`INVALID_CONFIG`, or the job
   *   contract's code for a bad job field); the message starts with `schedules: `
   * @throws NudgeError `HANDLERS_INVALID` when the handler module cannot be loaded, a kind
   *   declares a field wrongly (the message names the kind and the field), or its `schedules`
   *   export is invalid (the message names the schedule and the field)
   */
  static async create(options: EngineOptions): Promise<Engine> {
    const resolved = resolveEngineOptions(options);
    const { kinds, schedules: declared } = await describeHandlers(
      resolved.handlers,
      resolved.maxOldGenerationSizeMb,
    );
    const schedules = checkSchedules(declared, resolved.schedules, new Set(kinds.map((k) => k.kind)));
    // Threads start before the executor exists; their reports reach it once it does.
    const target: { executor?: Executor } = {};
    const pools = await startThreadPools(resolved, kinds, {
      onResults: (execution, results) => target.executor?.onResults(execution, results),
      onThreadLost: (...args) => target.executor?.onThreadLost(...args),
      onThreadReady: (execution) => target.executor?.onThreadReady(execution),
      onProgress: (progress) => target.executor?.onProgress(progress),
    });
    const engine = new Engine(resolved, kinds, pools, schedules);
    target.executor = engine.#executor;
    return engine;
  }

  /** Kinds the handler module exports, sorted. */
  get kinds(): readonly string[] {
    return [...this.#kinds.keys()].sort();
  }

  /** The execution class of each kind. */
  get kindClasses(): ReadonlyMap<string, ExecutionClass> {
    return this.#kinds;
  }

  /**
   * What `kind` declares next to its handler (execution class, `maxAttempts`, `backoff`,
   * `timeoutMs`, `queue`, and `schema` as plain JSON Schema), or `undefined` for a kind the
   * handler module does not export. Absent fields were not declared: see {@link backoffFor} and
   * {@link timeoutFor} for the values in effect.
   */
  kindInfo(kind: string): KindInfo | undefined {
    return this.#registry.info(kind);
  }

  /** The attempt timeout of `kind` in effect, in ms: its declared `timeoutMs`, else `jobTimeoutMs`. */
  timeoutFor(kind: string): number {
    return this.#registry.timeoutMs(kind);
  }

  /**
   * The job as {@link enqueue} stores it: `maxAttempts` and `queue` from the kind's declaration
   * when the input gives none, once its payload (`{}` when omitted) matched the kind's `schema`.
   * Producers that write through the store directly (`POST /jobs/batch`) call it first. A kind
   * the module does not export is returned as given.
   * @throws NudgeError `PAYLOAD_INVALID` naming the JSON Pointer of the first value at fault and
   *   what the schema expects there, e.g. `/payload/to must be string (got 5)`
   */
  prepareEnqueue(input: EnqueueInput): EnqueueInput {
    return this.#registry.prepare(input);
  }

  /** Slots not running a job, over every class. */
  get freeSlots(): number {
    return this.#executor.free('cpu') + this.#executor.free('async');
  }

  /** Slots of each execution class that has kinds. */
  get slots(): Partial<Record<ExecutionClass, SlotCounts>> {
    const slots: Partial<Record<ExecutionClass, SlotCounts>> = {};
    for (const [execution, kinds] of this.#kindsByClass) {
      if (kinds.length > 0) {
        slots[execution] = {
          total: this.#executor.capacity(execution),
          free: this.#executor.free(execution),
        };
      }
    }
    return slots;
  }

  /** Registers the instance and starts claiming, heartbeats, sweeps and the scheduler. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#leaseKeeper.start();
    this.#rescuer.start();
    this.#pruner.start();
    this.#cron.start();
    this.#scheduler.start();
    this.#unhandled.start();
    this.#claimer.start();
    this.#waker.start();
    this.#safetyPoll.start();
  }

  /**
   * Claim requests that reached the claim trigger since the engine was created, and how many of
   * them coalesced into a pass already owed instead of running one of their own.
   */
  get claimRequests(): TriggerCounts {
    return this.#claimer.requestCounts;
  }

  /**
   * Asks for a claim pass (coalesced), as a sign of work: an idle safety poll comes back to its
   * short interval. Does nothing before {@link start} or after {@link stop}.
   */
  requestClaim(): void {
    if (!this.#started || this.#stopping) return;
    this.#safetyPoll.workSeen();
    this.#claimer.request();
  }

  /**
   * Enqueues one job through this instance. When a slot of the kind's class is free, the row is
   * inserted already claimed by this instance (unless a due job should run first; the store
   * decides in the same statement) and starts right after the commit, without a claim round
   * trip; otherwise it is inserted as usual and a claim is requested. The kind's declared
   * defaults and schema apply first (see {@link prepareEnqueue}); a delayed job is never taken.
   * @returns the job as stored (`RUNNING` when this instance took it)
   * @param enqueuer - the API key that enqueues, when the HTTP API has keys (see `Store.enqueue`)
   * @throws NudgeError `PAYLOAD_INVALID` (the payload does not match the kind's schema), or what
   *   the store throws (`PAYLOAD_TOO_DEEP`, `PAYLOAD_UNSTORABLE`, `INVALID_REQUEST`,
   *   `DEBOUNCE_OWNED_BY_OTHER_KEY`, `IDEMPOTENCY_KEY_CONFLICT`); nothing is written
   */
  async enqueue(given: EnqueueInput, enqueuer?: Enqueuer): Promise<EnqueuedJob> {
    const input = this.prepareEnqueue(given);
    if (this.#started && !this.#stopping) this.#safetyPoll.workSeen();
    return selfClaimEnqueue(
      {
        store: this.options.store,
        executor: this.#executor,
        workerId: this.options.workerId,
        leaseMs: this.options.leaseMs,
        serving: this.options.queueServing,
        kinds: this.#kinds,
        kindsByClass: this.#kindsByClass,
        running: this.#started && !this.#stopping,
        requestClaim: () => this.requestClaim(),
      },
      input,
      enqueuer,
    );
  }

  /**
   * Enqueues jobs already prepared with {@link prepareEnqueue} in one transaction, all or nothing
   * (see `Store.enqueueMany`), then requests one claim.
   * @param enqueuer - the API key that enqueues, when the HTTP API has keys (see `Store.enqueue`)
   * @returns each job as stored, in input order
   * @throws NudgeError what the store throws (see {@link enqueue}); nothing is written
   */
  async enqueueMany(prepared: readonly EnqueueInput[], enqueuer?: Enqueuer): Promise<EnqueuedJob[]> {
    return enqueueBatch(
      { store: this.options.store, requestClaim: () => this.requestClaim() },
      prepared,
      enqueuer,
    );
  }

  /**
   * Cancels a job (see `Store.cancelJob`). A running attempt on this instance is aborted at once
   * (`ctx.signal` fires; the thread is terminated if the handler ignores it past the abort grace);
   * one on another instance is aborted by that instance's next heartbeat.
   */
  async cancel(id: number): Promise<JobCommandResult> {
    const result = await this.options.store.cancelJob(id);
    if (result.outcome === 'changed') {
      this.emit('command:done', { command: 'cancel', id, kind: result.job.kind, queue: result.job.queue });
    }
    if (
      result.outcome === 'changed' &&
      result.previous === 'RUNNING' &&
      result.job.claimedBy === this.options.workerId
    ) {
      this.#abortCancelled([{ id, version: result.job.version }]);
    }
    return result;
  }

  /**
   * Cancels every job of `filter` (see `Store.cancelJobs`), a page at a time. As {@link cancel}
   * does for one job, a running attempt of one of them on this instance is aborted at once; one on
   * another instance is aborted by that instance's next heartbeat.
   * @throws NudgeError `INVALID_REQUEST` for an invalid filter, before any job changes
   */
  async cancelMany(filter: CancelJobsFilter): Promise<BulkCommandResult> {
    const result = await this.options.store.cancelJobs(filter);
    if (result.changed > 0) {
      this.emit('bulk-command:done', { command: 'cancel', changed: result.changed, groups: result.groups });
    }
    this.#abortCancelled(result.running.filter((job) => job.claimedBy === this.options.workerId));
    return result;
  }

  /**
   * Retries every failed or cancelled job of `filter` (see `Store.retryJobs`), a page at a time,
   * and asks for a claim.
   * @throws NudgeError `INVALID_REQUEST` for an invalid filter, before any job changes
   */
  async retryMany(filter: RetryJobsFilter): Promise<BulkCommandResult> {
    const result = await this.options.store.retryJobs(filter);
    if (result.changed > 0) {
      this.emit('bulk-command:done', { command: 'retry', changed: result.changed, groups: result.groups });
      this.requestClaim();
    }
    return result;
  }

  /** Aborts this instance's attempts of jobs just cancelled (`version`: the version after the cancel). */
  #abortCancelled(jobs: readonly { id: number; version: number }[]): void {
    if (jobs.length === 0) return;
    // The cancel bumped the version by one: the attempt ran under the one before.
    const leases = jobs.map(({ id, version }) => ({ id, version: version - 1 }));
    const ids = new Set(jobs.map(({ id }) => id));
    for (const aborted of this.#executor.loseLeases(leases, ids)) {
      this.options.logger.info(jobLogFields(aborted), 'job cancelled: aborting the attempt');
      this.emit('job:cancelled', { id: aborted.id, version: aborted.version });
    }
  }

  /** Retries a failed or cancelled job (see `Store.retryJob`) and asks for a claim. */
  async retry(id: number): Promise<JobCommandResult> {
    const result = await this.options.store.retryJob(id);
    if (result.outcome === 'changed') {
      this.emit('command:done', { command: 'retry', id, kind: result.job.kind, queue: result.job.queue });
      this.requestClaim();
    }
    return result;
  }

  /** Renews the leases this instance holds; aborts attempts whose lease was lost. */
  heartbeatOnce(): Promise<HeartbeatResult> {
    return this.#leaseKeeper.runOnce();
  }

  /** Recovers jobs whose lease expired (on any instance), through every expired lease. */
  sweepOnce(): Promise<RescueResult> {
    return this.#rescuer.runOnce();
  }

  /** Deletes finished jobs past their retention (see {@link Pruner}). */
  pruneOnce(): Promise<PruneResult> {
    return this.#pruner.runOnce();
  }

  /** Enqueues the due ticks of the recurring schedules (see {@link CronScheduler}); `now` for tests. */
  cronOnce(now?: Date): Promise<CronRunResult> {
    return this.#cron.runOnce(now);
  }

  /** The recurring schedules this engine runs: the handler module's, then the configured ones. */
  get schedules(): readonly ResolvedSchedule[] {
    return this.#cron.schedules;
  }

  /** Promotes due scheduled jobs. */
  promoteOnce(): Promise<ScheduleResult> {
    return this.#scheduler.runOnce();
  }

  /** Fails jobs whose kind no live instance handles, past the grace. */
  failUnhandledKindsOnce(): Promise<UnhandledKindsRun> {
    return this.#unhandled.runOnce();
  }

  /**
   * The retry curve of a kind: the engine's `backoffByKind[kind]` when given, else the kind's
   * declared `backoff`, either merged over the engine's `backoff`; else `backoff`.
   */
  backoffFor(kind: string): BackoffOptions {
    return this.#registry.backoffFor(kind);
  }

  /**
   * Graceful shutdown: stops claiming, lets running jobs finish for `shutdownGraceMs`, then
   * aborts the rest (signal, then terminate after `abortGraceMs`) and releases their rows to
   * `PENDING` (version bumped, attempt refunded) so another instance takes them at once; writes
   * every outcome, stops the threads and leaves the instance registry. Idempotent.
   */
  stop(): Promise<void> {
    this.#stopping ??= shutdownEngine({
      options: this.options,
      services: [
        this.#safetyPoll,
        this.#waker,
        this.#claimer,
        this.#rescuer,
        this.#pruner,
        this.#cron,
        this.#scheduler,
        this.#unhandled,
      ],
      claimer: this.#claimer,
      executor: this.#executor,
      leaseKeeper: this.#leaseKeeper,
      writer: this.#writer,
      progress: this.#progress,
      started: this.#started,
      slotFreed: () => new Promise((resolve) => this.once('slot:freed', () => resolve())),
    })
      .then(() => this.#waker.closed())
      .then(() => {
        this.emit('stopped', {});
      });
    return this.#stopping;
  }
}

import { EventEmitter } from 'node:events';
import type { BackoffOptions, Enqueuer, ExecutionClass } from '@nudge/core';
import type {
  BulkCommandResult,
  CancelJobsFilter,
  EnqueuedJob,
  EnqueueInput,
  JobCommandResult,
  RetryJobsFilter,
  RetrySteps,
  SentSignal,
  SignalInput,
} from '@nudge/store';
import type { TriggerCounts } from './claim-trigger.js';
import type { ResolvedSchedule } from './cron-schedule.js';
import { cancelJob, cancelJobs, retryJob, retryJobs, sendSignal } from './engine-commands.js';
import type { EngineEvents } from './engine-events.js';
import type { EngineOptions, ResolvedEngineOptions } from './engine-options.js';
import { wireEngine, type EngineParts } from './engine-wiring.js';
import type { KindInfo } from './handlers/handler.js';
import { enqueueBatch, selfClaimEnqueue } from './self-claim-enqueue.js';
import { loadEngine, type LoadedEngine } from './load-engine.js';
import type {
  CronRunResult,
  HeartbeatResult,
  PruneResult,
  RescueResult,
  ScheduleResult,
  UnhandledKindsRun,
} from './service-results.js';
import { shutdownEngine } from './shutdown.js';

/** Slots of one execution class. */
export interface SlotCounts {
  readonly total: number;
  readonly free: number;
}

/**
 * Claims jobs into free worker-thread slots and records their outcomes. A facade over one list
 * of background services (see `wireEngine`: instance registry, lease keeper, rescuer, pruner,
 * cron, promoter, unhandled-kinds check, claimer, new-jobs waker, safety poll), the slot ledger
 * and the attempt supervisor. Each service's `runOnce` is exposed for tests and tools.
 *
 * Emits the events of {@link EngineEvents}; nothing inside the engine listens to them.
 */
export class Engine extends EventEmitter<{ [K in keyof EngineEvents]: [EngineEvents[K]] }> {
  readonly options: ResolvedEngineOptions;
  readonly #parts: EngineParts;
  #started = false;
  #stopping: Promise<void> | undefined;

  private constructor(loaded: LoadedEngine) {
    super();
    this.options = loaded.options;
    this.#parts = wireEngine(loaded, {
      emit: (name, value) => void (this.emit as (n: typeof name, v: typeof value) => boolean)(name, value),
      requestClaim: () => this.requestClaim(),
      enqueue: (input) => this.enqueue(input),
      running: () => this.#started && !this.#stopping,
    });
  }

  /**
   * Validates the options, loads the handler module and starts its threads (see `loadEngine` for
   * what it throws: RangeError for an option out of range, NudgeError `HANDLERS_INVALID` or one
   * with `option: 'schedules'`).
   */
  static async create(options: EngineOptions): Promise<Engine> {
    return new Engine(await loadEngine(options));
  }

  /** Kinds the handler module exports, sorted. */
  get kinds(): readonly string[] {
    return [...this.#parts.kinds.keys()].sort();
  }

  /** The execution class of each kind. */
  get kindClasses(): ReadonlyMap<string, ExecutionClass> {
    return this.#parts.kinds;
  }

  /**
   * What `kind` declares next to its handler (execution class, `maxAttempts`, `backoff`,
   * `timeoutMs`, `queue`, and `schema` as plain JSON Schema), or `undefined` for a kind the
   * handler module does not export. Absent fields were not declared: see {@link backoffFor} and
   * {@link timeoutFor} for the values in effect.
   */
  kindInfo(kind: string): KindInfo | undefined {
    return this.#parts.kindRegistry.info(kind);
  }

  /** The attempt timeout of `kind` in effect, in ms: its declared `timeoutMs`, else `jobTimeoutMs`. */
  timeoutFor(kind: string): number {
    return this.#parts.kindRegistry.timeoutMs(kind);
  }

  /**
   * The retry curve of a kind: the engine's `backoffByKind[kind]` when given, else the kind's
   * declared `backoff`, either merged over the engine's `backoff`; else `backoff`.
   */
  backoffFor(kind: string): BackoffOptions {
    return this.#parts.kindRegistry.backoffFor(kind);
  }

  /**
   * The job as {@link enqueue} stores it: `maxAttempts` and `queue` from the kind's declaration
   * when the input gives none, once its payload (`{}` when omitted) matched the kind's `schema`.
   * Producers that write through the store directly call it first. A kind the module does not
   * export is returned as given.
   * @throws NudgeError `PAYLOAD_INVALID` naming the JSON Pointer of the first value at fault and
   *   what the schema expects there, e.g. `/payload/to must be string (got 5)`
   */
  prepareEnqueue(input: EnqueueInput): EnqueueInput {
    return this.#parts.kindRegistry.prepare(input);
  }

  /** Slots not running a job, over every class. */
  get freeSlots(): number {
    return this.#parts.ledger.free('cpu') + this.#parts.ledger.free('async');
  }

  /** Slots of each execution class that has kinds. */
  get slots(): Partial<Record<ExecutionClass, SlotCounts>> {
    const { ledger, kindsByClass } = this.#parts;
    const slots: Partial<Record<ExecutionClass, SlotCounts>> = {};
    for (const [execution, kinds] of kindsByClass) {
      if (kinds.length > 0)
        slots[execution] = { total: ledger.capacity(execution), free: ledger.free(execution) };
    }
    return slots;
  }

  /** Starts every background service, in the order of the list (the registry first). */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    for (const service of this.#parts.services) service.start();
  }

  /** Claim requests that reached the claim trigger, and how many coalesced into a pass already owed. */
  get claimRequests(): TriggerCounts {
    return this.#parts.claimer.requestCounts;
  }

  /**
   * Asks for a claim pass (coalesced), as a sign of work: an idle safety poll comes back to its
   * short interval. Does nothing before {@link start} or after {@link stop}.
   */
  requestClaim(): void {
    if (!this.#started || this.#stopping) return;
    this.#parts.safetyPoll.workSeen();
    this.#parts.claimer.request();
  }

  /**
   * Enqueues one job through this instance, after the kind's declared defaults and schema (see
   * {@link prepareEnqueue}): inserted already claimed into a free slot when it can be, else
   * inserted and a claim requested (see `selfClaimEnqueue`).
   * @returns the job as stored (`RUNNING` when this instance took it)
   * @param enqueuer - the API key that enqueues, when the HTTP API has keys (see `Store.enqueue`)
   * @throws NudgeError `PAYLOAD_INVALID` (the payload does not match the kind's schema), or what
   *   the store throws (`PAYLOAD_TOO_DEEP`, `PAYLOAD_UNSTORABLE`, `INVALID_REQUEST`,
   *   `DEBOUNCE_OWNED_BY_OTHER_KEY`, `IDEMPOTENCY_KEY_CONFLICT`); nothing is written
   */
  async enqueue(given: EnqueueInput, enqueuer?: Enqueuer): Promise<EnqueuedJob> {
    const input = this.prepareEnqueue(given);
    if (this.#parts.selfClaim.running()) this.#parts.safetyPoll.workSeen();
    return selfClaimEnqueue(this.#parts.selfClaim, input, enqueuer);
  }

  /**
   * Enqueues jobs already prepared with {@link prepareEnqueue} in one transaction, all or nothing
   * (see `Store.enqueueMany`), then requests one claim.
   * @param enqueuer - the API key that enqueues, when the HTTP API has keys (see `Store.enqueue`)
   * @returns each job as stored, in input order
   * @throws NudgeError what the store throws (see {@link enqueue}); nothing is written
   */
  enqueueMany(prepared: readonly EnqueueInput[], enqueuer?: Enqueuer): Promise<EnqueuedJob[]> {
    return enqueueBatch(this.#parts.selfClaim, prepared, enqueuer);
  }

  /** Cancels a job; see `cancelJob` in engine-commands.ts (a running attempt here is aborted at once). */
  cancel(id: number): Promise<JobCommandResult> {
    return cancelJob(this.#parts.commands, id);
  }

  /** Cancels every job of `filter`; see `cancelJobs`. @throws NudgeError `INVALID_REQUEST` */
  cancelMany(filter: CancelJobsFilter): Promise<BulkCommandResult> {
    return cancelJobs(this.#parts.commands, filter);
  }

  /**
   * Retries a failed or cancelled job and asks for a claim; its finished steps are kept unless
   * `steps` clears them (`fromStep`, `resetSteps`). See `retryJob`.
   * @throws NudgeError `INVALID_REQUEST` for both `fromStep` and `resetSteps`; `STEP_NOT_FOUND`
   *   when the job has no step named `fromStep`
   */
  retry(id: number, steps?: RetrySteps): Promise<JobCommandResult> {
    return retryJob(this.#parts.commands, id, steps);
  }

  /**
   * Retries every failed or cancelled job of `filter`, clearing steps as its `fromStep` or
   * `resetSteps` say; see `retryJobs`. @throws NudgeError `INVALID_REQUEST`
   */
  retryMany(filter: RetryJobsFilter): Promise<BulkCommandResult> {
    return retryJobs(this.#parts.commands, filter);
  }

  /**
   * Sends a signal to a job and, when it is new, asks for a claim (a job it released starts at
   * once); see `sendSignal` in engine-commands.ts.
   * @throws NudgeError `JOB_NOT_FOUND`, `JOB_STATE_CONFLICT`, `INVALID_REQUEST`,
   *   `PAYLOAD_TOO_DEEP` or `PAYLOAD_UNSTORABLE` (see `Store.sendSignal`)
   */
  sendSignal(input: SignalInput): Promise<SentSignal> {
    return sendSignal(this.#parts.commands, input);
  }

  /**
   * Refreshes this instance's registry row (registering it again if it vanished), then renews the
   * leases it holds and aborts attempts whose lease was lost.
   */
  async heartbeatOnce(): Promise<HeartbeatResult> {
    await this.#parts.instances.runOnce();
    return this.#parts.leaseKeeper.runOnce();
  }

  /** Recovers jobs whose lease expired (on any instance): the rescuer's run. */
  sweepOnce(): Promise<RescueResult> {
    return this.#parts.rescuer.runOnce();
  }

  /** Deletes finished jobs past their retention (see `Pruner`). */
  pruneOnce(): Promise<PruneResult> {
    return this.#parts.pruner.runOnce();
  }

  /** Enqueues the due ticks of the recurring schedules (see `CronScheduler`); `now` for tests. */
  cronOnce(now?: Date): Promise<CronRunResult> {
    return this.#parts.cron.runOnce(now);
  }

  /** The recurring schedules this engine runs: the handler module's, then the configured ones. */
  get schedules(): readonly ResolvedSchedule[] {
    return this.#parts.cron.schedules;
  }

  /** Promotes due scheduled jobs (see `Promoter`). */
  promoteOnce(): Promise<ScheduleResult> {
    return this.#parts.promoter.runOnce();
  }

  /** Fails jobs whose kind no live instance handles, past the grace. */
  failUnhandledKindsOnce(): Promise<UnhandledKindsRun> {
    return this.#parts.unhandled.runOnce();
  }

  /**
   * Graceful shutdown: stops claiming, lets running jobs finish for `shutdownGraceMs`, then
   * aborts the rest (signal, then terminate after `abortGraceMs`) and releases their rows to
   * `PENDING` (version bumped, attempt refunded) so another instance takes them at once; writes
   * every outcome, stops the threads and leaves the instance registry. Idempotent.
   */
  stop(): Promise<void> {
    this.#stopping ??= shutdownEngine(this.options, this.#parts).then(() => void this.emit('stopped', {}));
    return this.#stopping;
  }
}

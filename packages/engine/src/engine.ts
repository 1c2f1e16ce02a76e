import { EventEmitter } from 'node:events';
import { retryDelayMs, type BackoffOptions, type Job } from '@nudge/core';
import type { JobLease, SweepResult } from '@nudge/store';
import { describeThreadFailure, type AbortReason } from './attempt-failure.js';
import { ClaimTrigger } from './claim-trigger.js';
import type { EngineEvents } from './engine-events.js';
import { resolveEngineOptions, type EngineOptions, type ResolvedEngineOptions } from './engine-options.js';
import { OutcomeWriter, type Outcome } from './outcome-writer.js';
import { PeriodicTimer } from './periodic-timer.js';
import { WorkerPool, type PoolRun } from './pool/worker-pool.js';
import type { RunResult } from './pool/task.js';

interface RunningJob {
  readonly job: Job;
  readonly run: PoolRun;
  readonly timers: NodeJS.Timeout[];
  abortReason?: AbortReason;
}

/**
 * Claims jobs into free worker threads and records their outcomes. One trigger path
 * ({@link requestClaim}) serves the poll timer, nudges and freed slots; the claim limit is the
 * number of free slots, and no query runs when there are none. Heartbeats renew the leases of
 * running jobs; a sweep recovers jobs whose lease expired anywhere.
 *
 * Emits the events of {@link EngineEvents}.
 */
export class Engine extends EventEmitter<{ [K in keyof EngineEvents]: [EngineEvents[K]] }> {
  readonly options: ResolvedEngineOptions;
  readonly #pool: WorkerPool;
  readonly #kinds: ReadonlySet<string>;
  readonly #running = new Map<number, RunningJob>();
  /** Leases this instance holds: running jobs and those whose outcome is not yet written. */
  readonly #leases = new Map<number, JobLease>();
  readonly #trigger: ClaimTrigger;
  readonly #writer: OutcomeWriter;
  readonly #timers: PeriodicTimer[];
  #started = false;
  #stopping: Promise<void> | undefined;
  #workMayRemain = false;

  private constructor(options: ResolvedEngineOptions, pool: WorkerPool) {
    super();
    this.options = options;
    this.#pool = pool;
    this.#kinds = new Set(pool.kinds);
    this.#trigger = new ClaimTrigger(() => this.#claimPass());
    this.#writer = new OutcomeWriter(
      options.store,
      options.logger,
      (name, value) => this.#emitEvent(name, value),
      (leases) => {
        for (const lease of leases) {
          if (this.#leases.get(lease.id)?.version === lease.version) this.#leases.delete(lease.id);
        }
      },
    );
    const log = (what: string) => (error: unknown) => options.logger.error({ err: error }, `${what} failed`);
    this.#timers = [
      new PeriodicTimer(async () => this.requestClaim(), options.pollIntervalMs, log('poll')),
      new PeriodicTimer(() => this.heartbeatOnce(), Math.floor(options.leaseMs / 3), log('heartbeat'), 0),
      new PeriodicTimer(() => this.sweepOnce(), options.sweepIntervalMs, log('sweep')),
    ];
  }

  /**
   * Validates the options and starts the worker threads (loading the handler module).
   * @throws RangeError when an option is out of range
   * @throws NudgeError `HANDLERS_INVALID` when the handler module cannot be loaded
   */
  static async create(options: EngineOptions): Promise<Engine> {
    const resolved = resolveEngineOptions(options);
    const pool = await WorkerPool.start(resolved);
    return new Engine(resolved, pool);
  }

  #emitEvent<K extends keyof EngineEvents>(name: K, value: EngineEvents[K]): void {
    (this.emit as (name: K, value: EngineEvents[K]) => boolean)(name, value);
  }

  /** Kinds the handler module exports, sorted. */
  get kinds(): readonly string[] {
    return this.#pool.kinds;
  }

  /** Slots not running a job. */
  get freeSlots(): number {
    return this.options.threads - this.#running.size;
  }

  /** Starts polling, heartbeats and sweeps, and claims at once. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    for (const timer of this.#timers) timer.start();
    this.requestClaim();
  }

  /** Asks for a claim pass (coalesced); does nothing before {@link start} or after {@link stop}. */
  requestClaim(): void {
    if (!this.#started || this.#stopping) return;
    if (this.freeSlots === 0) {
      this.#workMayRemain = true;
      return;
    }
    this.#trigger.request();
  }

  /** Recovers jobs whose lease expired (on any instance) and claims if some became due. */
  async sweepOnce(): Promise<SweepResult> {
    const result = await this.options.store.sweepExpired({
      retryDelayMs: ({ kind, attempts }) => retryDelayMs(attempts, this.backoffFor(kind)),
    });
    this.emit('sweep:done', result);
    if (result.requeued + result.failed > 0) {
      this.options.logger.info({ ...result }, 'recovered jobs with expired leases');
    }
    if (result.requeued > 0) this.requestClaim();
    return result;
  }

  /** Renews the leases this instance holds; aborts attempts whose lease was lost. */
  async heartbeatOnce(): Promise<{ renewed: number; lost: number }> {
    const leases = [...this.#leases.values()];
    if (leases.length === 0) return { renewed: 0, lost: 0 };
    const held = await this.options.store.heartbeat(leases, this.options.leaseMs);
    const heldIds = new Set(held.map((lease) => lease.id));
    let lost = 0;
    for (const lease of leases) {
      if (heldIds.has(lease.id) || this.#leases.get(lease.id)?.version !== lease.version) continue;
      const running = this.#running.get(lease.id);
      // Only a running attempt can lose its lease here; a written outcome already left the set.
      if (!running || running.job.version !== lease.version) continue;
      lost += 1;
      this.#leases.delete(lease.id);
      this.options.logger.warn(
        { jobId: lease.id, version: lease.version },
        'lease lost: aborting the attempt',
      );
      this.emit('job:lease-lost', lease);
      this.#abort(running, 'lease-lost');
    }
    const result = { renewed: held.length, lost };
    this.emit('heartbeat:done', result);
    return result;
  }

  /** The retry curve of a kind: `backoff` with the kind's overrides. */
  backoffFor(kind: string): BackoffOptions {
    return this.options.backoffByKind[kind] ?? this.options.backoff;
  }

  /**
   * Graceful shutdown: stops claiming, lets running jobs finish for `shutdownGraceMs`, then
   * aborts the rest and releases their rows to `PENDING` (version bumped) so another instance
   * takes them at once; writes every outcome and stops the threads. Idempotent.
   */
  stop(): Promise<void> {
    this.#stopping ??= this.#shutdown();
    return this.#stopping;
  }

  async #shutdown(): Promise<void> {
    const [poll, heartbeat, sweep] = this.#timers;
    poll?.stop();
    sweep?.stop();
    await this.#trigger.idle();
    const graceEnds = Date.now() + this.options.shutdownGraceMs;
    for (
      let left = this.options.shutdownGraceMs;
      this.#running.size > 0 && left > 0;
      left = graceEnds - Date.now()
    ) {
      await this.#nextSlotFreed(left);
    }
    for (const running of this.#running.values()) this.#abort(running, 'shutdown', true);
    while (this.#running.size > 0) await this.#nextSlotFreed(60_000);
    heartbeat?.stop();
    await this.#writer.flush(true);
    await this.#pool.destroy();
    this.emit('stopped', {});
  }

  #nextSlotFreed(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.off('slot:freed', done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.on('slot:freed', done);
    });
  }

  async #claimPass(): Promise<boolean> {
    const limit = this.freeSlots;
    if (limit === 0 || this.#stopping) {
      this.#workMayRemain = limit === 0;
      return false;
    }
    this.emit('claim:query', { limit });
    let jobs: Job[];
    try {
      jobs = await this.options.store.claim({
        workerId: this.options.workerId,
        limit,
        leaseMs: this.options.leaseMs,
      });
    } catch (error) {
      this.options.logger.error({ err: error }, 'claim failed; the poll loop will retry');
      this.emit('claim:error', { error });
      return false;
    }
    this.emit(jobs.length > 0 ? 'claim:claimed' : 'claim:empty', { count: jobs.length, limit });
    for (const job of jobs) this.#dispatch(job);
    this.#workMayRemain = jobs.length === limit;
    return jobs.length === limit && this.freeSlots > 0;
  }

  #dispatch(job: Job): void {
    const lease = { id: job.id, version: job.version };
    this.#leases.set(job.id, lease);
    if (this.#stopping) {
      this.#writer.push({ type: 'release', input: lease });
      return;
    }
    if (!this.#kinds.has(job.kind)) {
      const known = [...this.#kinds].join(', ');
      const error = `unknown job kind "${job.kind}": no handler exported by ${this.options.handlers} (known kinds: ${known})`;
      this.#writer.push({ type: 'fail', input: { ...lease, error, retryDelayMs: 0, permanent: true } });
      return;
    }
    const run = this.#pool.run({
      jobId: job.id,
      kind: job.kind,
      payload: job.payload,
      attempt: job.attempts,
    });
    const running: RunningJob = { job, run, timers: [] };
    running.timers.push(setTimeout(() => this.#abort(running, 'timeout'), this.options.jobTimeoutMs));
    this.#running.set(job.id, running);
    this.emit('job:started', { job });
    run.done.then(
      (result) => this.#settle(running, this.#outcomeOf(running, result)),
      (error: unknown) => this.#settle(running, this.#outcomeOfCrash(running, error)),
    );
  }

  #abort(running: RunningJob, reason: AbortReason, now = false): void {
    if (running.abortReason && !now) return;
    running.abortReason ??= reason;
    running.run.signal(reason);
    if (now) running.run.terminate();
    else running.timers.push(setTimeout(() => running.run.terminate(), this.options.abortGraceMs));
  }

  #outcomeOf(running: RunningJob, result: RunResult): Outcome | undefined {
    const { job, abortReason } = running;
    const lease = { id: job.id, version: job.version };
    if (abortReason === 'lease-lost') return undefined;
    if (result.ok) return { type: 'complete', input: { ...lease, result: result.result } };
    if (abortReason === 'shutdown') return { type: 'release', input: lease };
    const error =
      abortReason === 'timeout'
        ? `timed out after ${this.options.jobTimeoutMs} ms: ${result.error}`
        : result.error;
    return this.#failure(job, error);
  }

  #outcomeOfCrash(running: RunningJob, error: unknown): Outcome | undefined {
    const { job, abortReason } = running;
    if (abortReason === 'lease-lost') return undefined;
    if (abortReason === 'shutdown') return { type: 'release', input: { id: job.id, version: job.version } };
    const message = describeThreadFailure(error, { reason: abortReason, ...this.options });
    this.options.logger.warn({ jobId: job.id, kind: job.kind, err: error }, message);
    return this.#failure(job, message);
  }

  #failure(job: Job, error: string): Outcome {
    const delay = retryDelayMs(job.attempts, this.backoffFor(job.kind));
    return { type: 'fail', input: { id: job.id, version: job.version, error, retryDelayMs: delay } };
  }

  #settle(running: RunningJob, outcome: Outcome | undefined): void {
    for (const timer of running.timers) clearTimeout(timer);
    this.#running.delete(running.job.id);
    if (outcome) this.#writer.push(outcome);
    else if (this.#leases.get(running.job.id)?.version === running.job.version)
      this.#leases.delete(running.job.id);
    this.emit('slot:freed', { free: this.freeSlots });
    if (this.#workMayRemain) this.requestClaim();
  }
}

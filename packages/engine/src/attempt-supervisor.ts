import type { ExecutionClass } from '@nudge/core';
import type { ClaimedJob, JobLease } from '@nudge/store';
import { AttemptAborter } from './attempt-aborter.js';
import { outcomeOfLoss, outcomeOfResult, type OutcomeContext } from './attempt-outcome.js';
import { leaseOf, type Attempt } from './attempt.js';
import { HeldLeases } from './held-leases.js';
import { heartbeatIntervalMs } from './lease-confirmation.js';
import { monotonicMs } from './threads/monotonic-ms.js';
import { jobLogFields } from './job-log-fields.js';
import { ReclaimWaitingList } from './reclaim-waiting-list.js';
import { RunningAttempts } from './running-attempts.js';
import type { SlotLedger } from './slot-ledger.js';
import { logThreadLoss } from './thread-loss-log.js';
import type { EmitEngineEvent } from './engine-events.js';
import type { ResolvedEngineOptions } from './engine-options.js';
import type { Outcome, OutcomeWriter } from './outcome-writer.js';
import type { ProgressWriter } from './progress-writer.js';
import type { LogWriter } from './log-writer.js';
import type { ExecutionPool, LostAttempt } from './threads/execution-pool.js';
import type {
  AttemptResult,
  LeaseCheckMessage,
  LogBatch,
  ProgressTuple,
  StepMessage,
  StepWrittenMessage,
} from './threads/thread-messages.js';
import type { StepRecorder } from './step-recorder.js';

/** What an {@link AttemptSupervisor} works with. */
export interface AttemptSupervisorParts {
  readonly options: ResolvedEngineOptions;
  /** The pool of each class that has kinds. */
  readonly pools: ReadonlyMap<ExecutionClass, ExecutionPool>;
  /** The class of every kind the handler module exports. */
  readonly kinds: ReadonlyMap<string, ExecutionClass>;
  /** The slots claims hold: attempts start in slots held there, and count against queue caps. */
  readonly ledger: SlotLedger;
  readonly writer: OutcomeWriter;
  /** Writes `ctx.progress` values through its throttle. */
  readonly progress: ProgressWriter;
  /** Writes `ctx.log` lines in batches, and to the service's log. */
  readonly logs: LogWriter;
  /** Writes the step rows of `ctx.step`. */
  readonly steps: StepRecorder;
  readonly emit: EmitEngineEvent;
  /** Decides outcomes; its `timeoutMs(kind)` also sets each attempt's deadline. */
  readonly outcomes: OutcomeContext;
  /** Slots of `execution` became free. */
  readonly onSlotsFreed: (execution: ExecutionClass) => void;
  /** Attempts of these queues ended (their caps have room again). */
  readonly onQueuesFreed: (queues: ReadonlySet<string>) => void;
}

/**
 * Runs claimed jobs on the execution pools and turns their ends into outcomes for the writer:
 * dispatch, the leases of this instance ({@link HeldLeases}), timeouts (through the
 * {@link AttemptAborter}: signal, then terminate after the abort grace), outcome mapping, lost
 * threads, and re-claims waiting behind their older attempt ({@link ReclaimWaitingList}). What
 * claims may take is the {@link SlotLedger}'s.
 */
export class AttemptSupervisor {
  readonly #parts: AttemptSupervisorParts;
  readonly #ledger: SlotLedger;
  readonly #attempts: RunningAttempts;
  readonly #held = new HeldLeases();
  readonly #waiting = new ReclaimWaitingList();
  readonly #aborter: AttemptAborter;
  /** Waiters of {@link whenIdle}, woken each time slots are freed. */
  #slotWaiters: Array<() => void> = [];
  #stopping = false;

  constructor(parts: AttemptSupervisorParts) {
    this.#ledger = parts.ledger;
    this.#parts = parts;
    // A twentieth of the shortest timeout of any kind (10 ms to 1 s): a deadline fires within 5 %.
    const shortest = Math.min(...[...parts.kinds.keys()].map((k) => parts.outcomes.timeoutMs(k)));
    const resolutionMs = Math.min(1000, Math.max(10, Math.min(shortest, parts.options.jobTimeoutMs) / 20));
    this.#attempts = new RunningAttempts(resolutionMs, parts.ledger.queues, (attempt) =>
      this.#aborter.abort([attempt], 'timeout'),
    );
    this.#aborter = new AttemptAborter({
      pools: parts.pools,
      abortGraceMs: parts.options.abortGraceMs,
      timeoutMs: (kind) => parts.outcomes.timeoutMs(kind),
      running: (attempt) => this.#attempts.get(attempt.job.id) === attempt,
    });
  }

  /** Attempts running. */
  get running(): number {
    return this.#attempts.size;
  }

  /** The leases this instance holds: running attempts and finished ones not yet written. */
  leases(): JobLease[] {
    return this.#held.list();
  }

  /**
   * Starts claimed jobs in slots held for them in the ledger (one each, by the class of its
   * kind). A job whose kind has no handler fails permanently; after {@link stop}, jobs are
   * released instead.
   */
  start(jobs: readonly ClaimedJob[]): void {
    for (const job of jobs) {
      const execution = this.#parts.kinds.get(job.kind);
      if (execution !== undefined) this.#ledger.takeHeld(execution);
    }
    this.#run(jobs);
  }

  #run(jobs: readonly ClaimedJob[]): void {
    const byClass = new Map<ExecutionClass, ClaimedJob[]>();
    const now = performance.now();
    for (const job of jobs) {
      const lease = { id: job.id, version: job.version };
      this.#held.hold(lease);
      const execution = this.#parts.kinds.get(job.kind);
      if (this.#stopping) {
        this.#parts.writer.push({ type: 'release', input: lease, job });
        continue;
      }
      if (execution === undefined || !this.#parts.pools.has(execution)) {
        const known = [...this.#parts.kinds.keys()].join(', ');
        const error = `unknown job kind "${job.kind}": no handler exported by ${this.#parts.options.handlers} (known kinds: ${known})`;
        this.#parts.writer.push({
          type: 'fail',
          input: { ...lease, error, retryDelayMs: 0, permanent: true },
          job,
        });
        continue;
      }
      if (this.#deferBehindOlder(job, execution)) continue;
      this.#attempts.add(job, execution, now, now + this.#parts.outcomes.timeoutMs(job.kind));
      const list = byClass.get(execution);
      if (list) list.push(job);
      else byClass.set(execution, [job]);
    }
    // Their leases were just claimed (or confirmed by a late claim's heartbeat), or renewed by
    // the heartbeats while the claim waited behind its older attempt.
    const freshUntil = monotonicMs() + heartbeatIntervalMs(this.#parts.options.leaseMs);
    for (const [execution, list] of byClass) {
      const unplaced = new Set(this.#parts.pools.get(execution)?.dispatch(list, freshUntil));
      if (unplaced.size > 0) this.#giveBack(execution, [...unplaced]);
      for (const job of list) if (!unplaced.has(job)) this.#parts.emit('job:started', { job });
    }
  }

  /**
   * Releases claimed jobs that found no thread to run on (one ended during the claim's round
   * trip): back to waiting, uncharged, for the next claim once a replacement thread is ready.
   */
  #giveBack(execution: ExecutionClass, jobs: readonly ClaimedJob[]): void {
    for (const job of jobs) {
      this.#attempts.finish(job.id, job.version);
      this.#parts.writer.push({ type: 'release', input: { id: job.id, version: job.version }, job });
    }
    this.#parts.options.logger.warn(
      { execution, jobs: jobs.map(jobLogFields) },
      `a ${execution} thread ended while jobs were being claimed for it; they were given back uncharged`,
    );
  }

  /**
   * Keeps the slot of a claim whose job's older attempt still runs here, and aborts that attempt
   * as lost (the claim fenced it out).
   * @returns whether the claim waits
   */
  #deferBehindOlder(job: ClaimedJob, execution: ExecutionClass): boolean {
    const older = this.#attempts.get(job.id);
    if (!older) return false;
    // A claim waiting already holds the slot; a newer one takes its place.
    if (this.#waiting.add(job)) this.#ledger.hold(execution);
    this.#parts.progress.finish(older.job.id, older.job.version);
    this.#aborter.abort([older], 'lease-lost');
    return true;
  }

  /** Starts the waiting claims whose older attempt ended, as their pool has places. */
  #startReady(): void {
    for (const job of this.#waiting.ready()) {
      const execution = this.#parts.kinds.get(job.kind);
      if (execution === undefined) {
        this.#waiting.remove(job.id);
        continue;
      }
      // Stopping, it is released without a place.
      if (!this.#stopping && (this.#parts.pools.get(execution)?.free ?? 0) === 0) continue;
      this.#waiting.remove(job.id);
      this.#ledger.takeHeld(execution);
      this.#run([job]);
    }
  }

  /** A replacement thread of `execution` is ready: its places are free. */
  onThreadReady(execution: ExecutionClass): void {
    this.#startReady();
    this.#parts.onSlotsFreed(execution);
  }

  /** Thread results arrived: write their outcomes and free their slots. */
  onResults(execution: ExecutionClass, results: readonly AttemptResult[]): void {
    const queues = new Set<string>();
    const now = performance.now();
    const ended: Array<[Attempt, AttemptResult]> = [];
    for (const result of results) {
      const attempt = this.#finish(result[0], result[1]);
      if (!attempt) continue;
      queues.add(attempt.job.queue);
      ended.push([attempt, result]);
    }
    // The next claim goes out before the outcomes: it is what the freed threads wait for, and
    // the outcome writes (their leases stay held until then) can follow it.
    this.#freed(execution, queues);
    for (const [attempt, result] of ended) {
      this.#parts.emit('job:ended', { job: attempt.job, execution, durationMs: now - attempt.startedAt });
      const latest = this.#parts.progress.finish(attempt.job.id, attempt.job.version);
      this.#record(attempt, outcomeOfResult(attempt, result, this.#parts.outcomes, latest));
    }
  }

  /** Running attempts reported progress: hand it to the throttled writer while their lease is held. */
  onProgress(progress: readonly ProgressTuple[]): void {
    for (const [id, version, json] of progress) {
      const attempt = this.#attempts.get(id);
      if (!attempt || attempt.job.version !== version) continue;
      if (attempt.abortReason === 'lease-lost' || attempt.abortReason === 'cancelled') continue;
      this.#parts.progress.report({ id, version }, json);
    }
  }

  /** Attempts wrote `ctx.log` lines: to the service's log at once, to the store in batches. */
  onLogs(batches: readonly LogBatch[]): void {
    this.#parts.logs.report(batches, (id, version) => {
      const attempt = this.#attempts.get(id);
      return attempt && attempt.job.version === version ? jobLogFields(attempt.job) : undefined;
    });
  }

  /** A running attempt asks for a step row: written, fenced by its lease, in the store. */
  onStepWrite(message: StepMessage | LeaseCheckMessage, reply: (answer: StepWrittenMessage) => void): void {
    this.#parts.steps.record(message, reply);
  }

  /**
   * A thread ended under some attempts: decide each one's outcome and free their slots.
   * `culpritKnown`: an attempt's own code ended the thread, maybe one no longer on it.
   */
  onThreadLost(
    execution: ExecutionClass,
    lost: readonly LostAttempt[],
    cause: unknown,
    terminated: boolean,
    culpritKnown = false,
  ): void {
    const known = culpritKnown || lost.some((l) => l.culpritError !== undefined);
    const finished: Array<[Attempt, LostAttempt]> = [];
    const queues = new Set<string>();
    const now = performance.now();
    for (const entry of lost) {
      const attempt = this.#finish(entry.id, entry.version);
      if (!attempt) continue;
      finished.push([attempt, entry]);
      queues.add(attempt.job.queue);
      this.#parts.emit('job:ended', { job: attempt.job, execution, durationMs: now - attempt.startedAt });
    }
    this.#parts.emit('thread:lost', { execution, terminated, attempts: finished.length });
    const timedOut = finished.some(([a]) => a.abortReason === 'timeout');
    logThreadLoss(
      this.#parts.options.logger,
      { execution, cause, terminated, timedOut },
      finished.map(([a]) => a.job),
    );
    const end = { cause, terminated, culpritKnown: known || timedOut };
    for (const [attempt, entry] of finished) {
      const latest = this.#parts.progress.finish(attempt.job.id, attempt.job.version);
      this.#record(attempt, outcomeOfLoss(attempt, entry, end, this.#parts.outcomes, latest));
    }
    this.#freed(execution, queues);
  }

  /**
   * The heartbeat did not find these leases (or the job was cancelled through this instance):
   * those of running attempts were lost (fenced out by a newer version), and the attempts are
   * aborted (`ctx.signal` fires; the thread is terminated if the handler ignores it past the abort
   * grace) and will write nothing. Ids in `cancelled` are aborted as cancelled. A lease whose outcome
   * was written meanwhile is simply no longer held.
   * @returns the jobs of the attempts aborted (each also its lease)
   */
  loseLeases(leases: readonly JobLease[], cancelled: ReadonlySet<number> = new Set()): ClaimedJob[] {
    const aborted: Attempt[] = [];
    const unstarted: ClaimedJob[] = [];
    for (const lease of leases) {
      const waiting = this.#waiting.get(lease.id);
      if (waiting?.version === lease.version) {
        this.#waiting.remove(waiting.id);
        this.#held.drop(lease);
        const execution = this.#parts.kinds.get(waiting.kind);
        if (execution !== undefined) this.#ledger.unreserve(execution, 1);
        unstarted.push(waiting);
        continue;
      }
      if (!this.#held.holds(lease)) continue;
      // A finished attempt's outcome write will find the lease gone on its own.
      const attempt = this.#attempts.get(lease.id);
      if (!attempt || attempt.job.version !== lease.version) continue;
      this.#held.drop(lease);
      this.#parts.progress.finish(lease.id, lease.version);
      aborted.push(attempt);
    }
    this.#aborter.abort(
      aborted.filter((a) => !cancelled.has(a.job.id)),
      'lease-lost',
    );
    this.#aborter.abort(
      aborted.filter((a) => cancelled.has(a.job.id)),
      'cancelled',
    );
    return [...aborted.map((attempt) => attempt.job), ...unstarted];
  }

  /** Outcomes of these leases are settled in the database. */
  written(leases: readonly JobLease[]): void {
    for (const lease of leases) this.#held.drop(lease);
  }

  /** Stops taking jobs: nothing more can be held, and any job started from now on is released at once. */
  stop(): void {
    this.#stopping = true;
    this.#ledger.close();
  }

  /** Aborts every running attempt for shutdown (signal, then terminate after the abort grace). */
  abortAll(): void {
    this.#aborter.abort(this.#attempts.values(), 'shutdown');
  }

  /** Resolves `true` once nothing runs, or `false` after `timeoutMs`. */
  async whenIdle(timeoutMs: number): Promise<boolean> {
    const deadline = performance.now() + timeoutMs;
    while (this.#attempts.size > 0 || this.#waiting.size > 0) {
      const left = deadline - performance.now();
      if (left <= 0) return false;
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.#slotWaiters.push(resolve);
        timer = setTimeout(resolve, left);
      });
      clearTimeout(timer);
    }
    return true;
  }

  /** Stops the pools and timers. */
  async destroy(): Promise<void> {
    this.#attempts.clearDeadlines();
    this.#aborter.clear();
    await Promise.all([...this.#parts.pools.values()].map((pool) => pool.destroy()));
  }

  #finish(id: number, version: number): Attempt | undefined {
    const attempt = this.#attempts.finish(id, version);
    if (attempt) this.#waiting.olderEnded(id);
    return attempt;
  }

  #record(attempt: Attempt, outcome: Outcome | undefined): void {
    if (outcome) this.#parts.writer.push(outcome);
    else this.#held.drop(leaseOf(attempt));
  }

  #freed(execution: ExecutionClass, queues: ReadonlySet<string>): void {
    if (this.#waiting.readyCount > 0) this.#startReady();
    this.#parts.emit('slot:freed', { free: this.#ledger.free(execution), execution });
    // Only a shutdown waits here; a drain frees slots on every result batch and allocates nothing.
    if (this.#slotWaiters.length > 0) {
      const waiters = this.#slotWaiters;
      this.#slotWaiters = [];
      for (const wake of waiters) wake();
    }
    this.#parts.onSlotsFreed(execution);
    if (queues.size > 0) this.#parts.onQueuesFreed(queues);
  }
}

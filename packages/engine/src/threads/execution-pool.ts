import type { ExecutionClass } from '@nudge/core';
import type { ClaimedJob, JobLease } from '@nudge/store';
import type {
  AttemptResult,
  LogBatch,
  ProgressTuple,
  StepMessage,
  StepWrittenMessage,
  LeaseCheckMessage,
  LeaseFresh,
} from './thread-messages.js';

/** An attempt that was on a thread when the thread ended. */
export interface LostAttempt {
  readonly id: number;
  readonly version: number;
  /** Why the attempt's own code ended the thread, when the thread said so. */
  readonly culpritError?: string;
}

/** What an {@link ExecutionPool} reports. */
export interface ExecutionPoolListener {
  /** Attempts ended (a batch); their slots are free again. */
  onResults(execution: ExecutionClass, results: readonly AttemptResult[]): void;
  /** A thread that replaced one that ended is ready: its places are free. */
  onThreadReady(execution: ExecutionClass): void;
  /** Running attempts of this pool reported progress (only those still on their thread). */
  onProgress(progress: readonly ProgressTuple[]): void;
  /**
   * Attempts of this pool wrote `ctx.log` lines; an attempt's last lines come before its result
   * (the store fences lines of attempts no longer current).
   */
  onLogs(batches: readonly LogBatch[]): void;
  /**
   * A running attempt asks for a step row to be written (`ctx.step`); `reply` sends the answer
   * to its thread.
   */
  onStepWrite(message: StepMessage | LeaseCheckMessage, reply: (answer: StepWrittenMessage) => void): void;
  /**
   * A thread ended with these attempts still on it (none when it was idle); their slots are free
   * again, and a new thread takes its place. `terminated` is true when the pool was asked to end it;
   * `culpritKnown` when an attempt's own code ended it, even one that had settled already (a stray
   * timer that called `process.exit` after its handler returned).
   */
  onThreadLost(
    execution: ExecutionClass,
    lost: readonly LostAttempt[],
    cause: unknown,
    terminated: boolean,
    culpritKnown: boolean,
  ): void;
}

/**
 * The threads of one execution class, as the executor sees them: places to run attempts, counted
 * exactly (a job is handed over only when a ready thread has a place for it at once), cooperative
 * aborts, and termination of the thread under an attempt. Two implementations: `PiscinaPool`
 * (`cpu` kinds, one Piscina task per job) and `ThreadPool` (`async` kinds, batched messages).
 */
export interface ExecutionPool {
  readonly execution: ExecutionClass;
  /** Attempts the pool runs at once when every thread is up. */
  readonly capacity: number;
  /** Attempts that can start now, each at once on a ready thread. */
  readonly free: number;
  /**
   * Starts jobs on ready threads. Places are counted when a claim starts ({@link free}), and a
   * thread can end during the claim's round trip (a handler exits, a timeout terminates it): the
   * jobs then left without a place are returned, unstarted, for the caller to give back; the
   * replacement thread's `onThreadReady` says when places return.
   * @param freshUntil - until when the jobs' leases count as fresh (see `LeaseFresh`); never
   *   stale by default
   * @returns the jobs no ready thread had a place for (none, unless a thread ended meanwhile)
   */
  dispatch(jobs: readonly ClaimedJob[], freshUntil?: LeaseFresh): ClaimedJob[];
  /** Fires `ctx.signal` of these attempts (cooperative), with `reason` as its reason's message. */
  abort(leases: readonly JobLease[], reason: string): void;
  /** Ends the thread running attempt `id`, and with it every attempt on that thread. */
  terminateThreadOf(id: number): void;
  /** Stops every thread, without replacing them; resolves once all have exited. */
  destroy(): Promise<void>;
}

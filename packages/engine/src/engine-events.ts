import type { ExecutionClass } from '@nudge/core';
import type {
  ClaimedJob,
  FailOutcome,
  JobLease,
  StepRecordInput,
  SuspendOutcome,
  SuspendWait,
} from '@nudge/store';
import type {
  CronRunResult,
  HeartbeatResult,
  PruneResult,
  RescueResult,
  ScheduleResult,
  UnhandledKindsRun,
} from './service-results.js';

/** What metrics and logs say of a job: its kind, its queue and the attempt's number (from 1). */
export interface JobLabels {
  readonly kind: string;
  readonly queue: string;
  readonly attempt: number;
}

/**
 * Events an {@link Engine} emits, by name, with their argument. Tests await these instead of
 * sleeping; metrics can count them.
 */
export interface EngineEvents {
  /** A claim query is about to run with this limit (free slots, summed over classes). */
  'claim:query': { limit: number };
  /** A claim returned jobs; `durationMs` is the claim query's round trip, in ms. */
  'claim:claimed': { count: number; limit: number; durationMs: number };
  /** A claim returned nothing; `durationMs` is the claim query's round trip, in ms. */
  'claim:empty': { count: number; limit: number; durationMs: number };
  /**
   * Cluster-wide limits of these queues held back due jobs in the claim: their room comes back
   * when a job of theirs ends on any instance, so the safety poll stays at its short interval.
   */
  'claim:held-back': { queues: readonly string[] };
  /**
   * A claim saw rate-limited queues: `rateWindows` has, for each, ms until its window lets the
   * next job start (0: it has room), at `nowMs`, the claim's time by the database clock (epoch ms).
   * Emitted before the claim's jobs start.
   */
  'claim:rate-windows': { nowMs: number; rateWindows: Readonly<Record<string, number>> };
  /** A claim query failed; the poll loop tries again. */
  'claim:error': { error: unknown };
  /** A claimed job was handed to a thread. */
  'job:started': { job: ClaimedJob };
  /**
   * An attempt's handler ended (result reported, or its thread lost); `durationMs` is the time
   * from handing it to its thread to its end, in ms. Its outcome is written next.
   */
  'job:ended': { job: ClaimedJob; execution: ExecutionClass; durationMs: number };
  /** A success was recorded. */
  'job:succeeded': JobLease & JobLabels;
  /** A failure was recorded: `status` is `SCHEDULED` or `PENDING` for a retry, `FAILED` when final. */
  'job:failed': FailOutcome & JobLabels & { error: string; retryDelayMs: number };
  /** A running job was given back (shutdown, or its thread was terminated for a neighbour). */
  'job:released': JobLease & JobLabels;
  /**
   * An attempt ended uncharged to sleep or wait for a signal (`ctx.sleep`, `ctx.sleepUntil`,
   * `ctx.waitForSignal`): `status` is `SCHEDULED` (asleep), `WAITING` (for the signal), or
   * `PENDING` (the time had passed or the signal had come: it runs again at once).
   */
  'job:suspended': SuspendOutcome & JobLabels & { readonly name: string; readonly wait: SuspendWait };
  /**
   * A step row was written for a running attempt (`ctx.step` finished or failed, or a signal
   * wait timed out on its thread); `written` false when the lease was lost and nothing was.
   */
  'step:recorded': { readonly write: StepRecordInput; readonly written: boolean };
  /** The attempt no longer owns its row; its outcome is discarded. */
  'job:lease-lost': JobLease;
  /**
   * The database refused to write this attempt's outcome for a reason of the row's own (the
   * store isolated it from the batch and logged the error): the job stays `RUNNING` until its
   * lease expires, and the sweep recovers it then.
   */
  'job:outcome-refused': JobLease & { readonly outcome: 'complete' | 'fail' | 'release' | 'suspend' };
  /**
   * A running attempt of this instance was aborted because its job was cancelled (found by the
   * heartbeat, or cancelled through this instance); its outcome is discarded.
   */
  'job:cancelled': JobLease;
  /** A cancel or retry through this engine (`Engine.cancel`, `Engine.retry`) changed a job. */
  'command:done': { command: 'cancel' | 'retry'; id: number; kind: string; queue: string };
  /**
   * A bulk cancel or retry through this engine (`Engine.cancelMany`, `Engine.retryMany`) changed
   * `changed` jobs, counted per kind and queue in `groups`.
   */
  'bulk-command:done': {
    command: 'cancel' | 'retry';
    changed: number;
    groups: readonly { kind: string; queue: string; changed: number }[];
  };
  /**
   * A signal was sent through this engine (`Engine.sendSignal`) and stored: `id` is the job's;
   * a repeat of a `signalId` (which stores nothing) emits nothing.
   */
  'signal:sent': { id: number; name: string; signalId: string | null };
  /** Progress values were written: `sent` in one statement, `written` of them still held their lease. */
  'progress:written': { sent: number; written: number };
  /**
   * `ctx.log` lines were written: of `lines` sent for `attempts` attempts in one store call,
   * `stored` were kept and `dropped` (with those dropped on threads) counted over the caps.
   */
  'logs:written': { attempts: number; lines: number; stored: number; dropped: number };
  /**
   * A recorded success enqueued follow-up jobs (`ctx.enqueue`): `due` when some can run now,
   * `nextDelayMs` until the earliest delayed one comes due (`null` when none is delayed). A
   * follow-up whose idempotency key existed is counted but was not inserted.
   */
  'job:followed-up': JobLease & { followUps: number; due: boolean; nextDelayMs: number | null };
  /**
   * A worker thread ended under `attempts` running attempts (0 when it was idle): it crashed
   * (`terminated` false), or the engine terminated it (a timeout past the abort grace). It is
   * replaced. Threads ended by the engine's shutdown are not reported.
   */
  'thread:lost': { execution: ExecutionClass; terminated: boolean; attempts: number };
  /** Slots of a class became free. */
  'slot:freed': { free: number; execution: ExecutionClass };
  /** Leases of running jobs were renewed. */
  'heartbeat:done': HeartbeatResult;
  /** A sweep for expired leases finished. */
  'sweep:done': RescueResult;
  /** A pass of the cron scheduler finished (see {@link CronScheduler}). */
  'cron:done': CronRunResult;
  /** A retention run finished (see {@link Pruner}). */
  'prune:done': PruneResult;
  /** Due scheduled jobs were promoted to `PENDING`. */
  'schedule:done': ScheduleResult;
  /** Jobs whose kind no live instance handles were failed. */
  'unhandled:failed': UnhandledKindsRun;
  /** Outcomes could not be written; they are kept and retried. */
  'outcome:error': { error: unknown };
  /** The listener for new jobs is listening: at start, and again after each reconnection. */
  'listen:ready': { reconnected: boolean };
  /** The listener stopped listening (its connection dropped); it reconnects on its own. */
  'listen:lost': Record<string, never>;
  /** The listener reported new runnable jobs (or reconnected); a claim was requested. */
  'listen:wake': Record<string, never>;
  /** The engine has stopped; no job of this instance is running. */
  stopped: Record<string, never>;
}

/** Name of an engine event. */
export type EngineEventName = keyof EngineEvents;

/** How the engine's services report an event: the engine's own typed `emit`. */
export type EmitEngineEvent = <K extends EngineEventName>(name: K, value: EngineEvents[K]) => void;

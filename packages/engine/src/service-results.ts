// What each of the engine's periodic services returns from one pass: types only, so that the
// services and engine-events.ts (which carries them in events) import them from here, not each other.

import type { TerminalStatus } from '@nudge/core';
import type { RecoveredJob } from '@nudge/store';

/** A tick the scheduler handled. */
export interface CronTick {
  readonly schedule: string;
  /** The tick's time. */
  readonly tickAt: Date;
  /** The job of the tick (`created` false: another instance enqueued it first). */
  readonly jobId: number;
  readonly created: boolean;
}

/** What one heartbeat did. */
export interface HeartbeatResult {
  /** Leases renewed. */
  readonly renewed: number;
  /** Running attempts aborted because their lease was gone. */
  readonly lost: number;
}

/** What one sweep did. */
export interface RescueResult {
  /** Rows put back to wait for a retry. */
  readonly requeued: number;
  /** Rows moved to `FAILED`: their attempts were used up. */
  readonly failed: number;
  /** Store calls made (pages). */
  readonly passes: number;
  /** Each recovered job's kind and queue, and whether it failed. */
  readonly recovered: readonly RecoveredJob[];
  /** Time until the earliest lease still held expires, in ms, or `null` when no job is running. */
  readonly nextLeaseExpiryInMs: number | null;
}

/** What one run of the {@link Pruner} deleted. */
export interface PruneResult {
  /** Jobs deleted, all statuses. */
  readonly deleted: number;
  /** Jobs deleted per status. */
  readonly byStatus: Readonly<Record<TerminalStatus, number>>;
  /** Delete statements run. */
  readonly batches: number;
  /** Whether the run ended by reclaiming the space of deleted rows (`Store.reclaimSpace`). */
  readonly reclaimed: boolean;
}

/** What one pass of the {@link CronScheduler} did. */
export interface CronRunResult {
  /** Ticks whose job this pass enqueued or found enqueued. */
  readonly ticks: readonly CronTick[];
  /** Due ticks not run: missed ticks before the latest, or the latest under `missed: 'skip'`. */
  readonly skipped: number;
}

/** What one run of the promoter did. */
export interface ScheduleResult {
  /** `SCHEDULED` rows made `PENDING`. */
  readonly promoted: number;
  /** Signal waits past their deadline made `PENDING` (their wait returns `null`); absent when none. */
  readonly timedOut?: number;
  /** Time until the next scheduled row is due, in ms, or `null` when none is scheduled. */
  readonly nextDueInMs: number | null;
  /** Some `PENDING` job is due (of any kind or queue): a claim may find work. */
  readonly runnable: boolean;
  /**
   * Time until the earliest lease of a running job expires, in ms (negative once expired), or
   * `null` when no job is running.
   */
  readonly nextLeaseExpiryInMs: number | null;
}

/** What one run did. */
export interface UnhandledKindsRun {
  /** Jobs failed. */
  readonly failed: number;
  /** Their kinds. */
  readonly kinds: string[];
}

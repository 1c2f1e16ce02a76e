import type { Job } from '@nudge/core';
import type { FailOutcome, JobLease, SweepResult } from '@nudge/store';

/**
 * Events an {@link Engine} emits, by name, with their argument. Tests await these instead of
 * sleeping; metrics can count them.
 */
export interface EngineEvents {
  /** A claim query is about to run with this limit (free slots). */
  'claim:query': { limit: number };
  /** A claim returned jobs. */
  'claim:claimed': { count: number; limit: number };
  /** A claim returned nothing. */
  'claim:empty': { limit: number };
  /** A claim query failed; the poll loop tries again. */
  'claim:error': { error: unknown };
  /** A claimed job was handed to a thread. */
  'job:started': { job: Job };
  /** A success was recorded. */
  'job:succeeded': JobLease;
  /** A failure was recorded: `status` is `PENDING` for a retry, `FAILED` when it is final. */
  'job:failed': FailOutcome & { error: string; retryDelayMs: number };
  /** A running job was given back on shutdown. */
  'job:released': JobLease;
  /** The attempt no longer owns its row; its outcome is discarded. */
  'job:lease-lost': JobLease;
  /** A thread became free. */
  'slot:freed': { free: number };
  /** Leases of running jobs were renewed. */
  'heartbeat:done': { renewed: number; lost: number };
  /** A sweep for expired leases finished. */
  'sweep:done': SweepResult;
  /** Outcomes could not be written; they are kept and retried. */
  'outcome:error': { error: unknown };
  /** The engine has stopped; no job of this instance is running. */
  stopped: Record<string, never>;
}

/** Name of an engine event. */
export type EngineEventName = keyof EngineEvents;

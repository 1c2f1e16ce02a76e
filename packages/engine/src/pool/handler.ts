import type { JsonValue } from '@nudge/core';

/** What a handler receives besides its payload. */
export interface HandlerContext {
  /** The job's id. */
  readonly jobId: number;
  /** The job's kind. */
  readonly kind: string;
  /** This attempt's number, from 1. */
  readonly attempt: number;
  /**
   * Aborted when the attempt must stop: its timeout passed, its lease was lost, or the service is
   * shutting down. The thread is terminated shortly after, whether or not the handler returns.
   */
  readonly signal: AbortSignal;
}

/**
 * A job handler: takes the job's payload, returns a JSON value stored as the job's `result`.
 * A thrown error fails the attempt and its message becomes `last_error`. Handlers run in worker
 * threads and may run more than once for one job (after a crash): make them idempotent.
 */
export type Handler = (payload: JsonValue, ctx: HandlerContext) => unknown;

import type { ExecutionClass, JsonValue } from '@nudge/core';

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
   * shutting down. A handler that has not settled `abortGraceMs` later gets its thread
   * terminated (and, for an `async` kind, the other jobs on that thread are given back uncharged).
   */
  readonly signal: AbortSignal;
}

/**
 * A job handler: takes the job's payload, returns a JSON value stored as the job's `result`.
 * A thrown error fails the attempt and its message becomes `last_error`. Handlers run in worker
 * threads and may run more than once for one job (after a crash): make them idempotent.
 */
export type Handler = (payload: JsonValue, ctx: HandlerContext) => unknown;

/**
 * A handler with its declared options, as a handler module may export it instead of a bare
 * function: `export const sendEmail = { handler: async (p, ctx) => …, execution: 'async' }`.
 */
export interface HandlerDefinition {
  readonly handler: Handler;
  /** How the kind runs; see {@link ExecutionClass}. @defaultValue `'cpu'` */
  readonly execution?: ExecutionClass;
}

/** One export of a handler module: a bare function (a `cpu` kind) or a {@link HandlerDefinition}. */
export type HandlerExport = Handler | HandlerDefinition;

/** A kind as the engine knows it once the handler module is loaded. */
export interface KindInfo {
  readonly kind: string;
  readonly execution: ExecutionClass;
}

/**
 * What the nudge worker passes a handler besides its payload (the engine's `HandlerContext`,
 * restated here because the demo depends on the server app only, not on the engine package).
 */
export interface JobContext {
  /** The job's id. */
  readonly jobId: number;
  /** The job's kind. */
  readonly kind: string;
  /** This attempt's number, from 1. */
  readonly attempt: number;
  /** Aborted when the attempt must stop (timeout, lost lease, shutdown). */
  readonly signal: AbortSignal;
}

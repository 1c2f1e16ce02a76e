import type { Job, JobInput, JsonValue } from '@nudge/core';

// The inputs and results of enqueueing (see store.ts).

/**
 * A new job: the job contract of `@nudge/core` (`JobInput`), checked by every enqueue
 * (`validateJobInput`). Omitted fields take the database defaults. A `runAt` after the database's
 * now, or a `delayMs` above 0 (counted inside the insert, `now() + delay`), stores the job
 * `SCHEDULED`; such a job is never claimed by {@link Store.enqueueAndClaim}. `traceContext`
 * fills the `trace_context` column.
 */
export type EnqueueInput = JobInput<string, JsonValue> & {
  /**
   * The W3C trace context the job is enqueued in, as the `trace_context` column stores it: JSON
   * text of `{ traceparent, tracestate? }` (see `traceContextText` of `@nudge/core`). Set by the
   * enqueue paths from the producer's active span, never by a producer's options. @defaultValue none
   */
  readonly traceContext?: string;
};

/** A job as an enqueue left it, and whether this call wrote it (`false`: its key existed). */
export type EnqueuedJob = Job & { readonly created: boolean };

/** Input of {@link Store.enqueueAndClaim}: who would own the row. */
export interface SelfClaimInput {
  /** Written to `claimed_by`. */
  readonly workerId: string;
  /** Lease length from the database's now, in ms. */
  readonly leaseMs: number;
  /**
   * Kinds that compete with the new job for the same slots: when a due `PENDING` job of one of
   * them comes at or before the new job in claim order, the new job is not claimed.
   */
  readonly kinds: readonly string[];
}

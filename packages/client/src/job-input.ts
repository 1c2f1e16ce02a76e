import type { JobInput } from '@nudge/core';

/** A job to enqueue, and where and how it runs: one contract for every enqueue path (see `@nudge/core`). */
export type { JobInput, JobOptions } from '@nudge/core';

/**
 * A job of any kind of `Payloads` (a kind → payload type map, such as `PayloadsOf<typeof
 * handlers>` from `@nudge/server/handlers`), as a union discriminated by `kind`: the payload's type
 * follows the kind at compile time.
 *
 * @example
 * type Payloads = { sendEmail: { to: string }; resize: { url: string; width: number } };
 * const job: JobFor<Payloads> = { kind: 'sendEmail', payload: { to: 'a@example.com' } };
 */
export type JobFor<Payloads extends object> = {
  [K in keyof Payloads & string]: JobInput<K, Payloads[K]>;
}[keyof Payloads & string];

/** What enqueueing one job did. */
export interface EnqueueResult {
  /** The job's id (a new job's, or the existing one's under the same idempotency key). */
  readonly id: number;
  /** `false` when a job of this kind with this idempotency key existed, so nothing was written. */
  readonly created: boolean;
}

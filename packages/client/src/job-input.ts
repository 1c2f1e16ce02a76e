import type { JsonValue } from '@nudge/core';

/**
 * A job to enqueue. Only `kind` is required; every omitted field takes the schema's default
 * (`payload` `{}`, `queue` `'default'`, `priority` 0, run now, `maxAttempts` 5).
 *
 * @typeParam K - the job kind
 * @typeParam P - the payload type of that kind
 */
export interface JobInput<K extends string = string, P = JsonValue> {
  /** Name of the handler to run; 1 to 200 characters. */
  readonly kind: K;
  /** Handler input, any JSON value (nested at most 100 levels). @defaultValue `{}` */
  readonly payload?: P;
  /** Named queue the job waits in; a queue name (`isQueueName` of `@nudge/core`). @defaultValue `'default'` */
  readonly queue?: string;
  /** Lower runs first; an integer from -1000 to 1000. @defaultValue 0 */
  readonly priority?: number;
  /** Earliest start, from 1970 to 9999; a future time stores the job as `SCHEDULED`. */
  readonly runAt?: Date;
  /**
   * Earliest start as a delay from now by the **database** clock, in ms: a whole number from 0 to
   * `MAX_DELAY_MS` (365 days). Exclusive with `runAt`.
   */
  readonly delayMs?: number;
  /** Attempts before the job is `FAILED`; an integer from 1 to 1000. @defaultValue 5 */
  readonly maxAttempts?: number;
  /**
   * While a job of this kind with this key is kept, enqueueing it again creates nothing and
   * returns the existing job's id (`created: false`); 1 to 200 characters.
   */
  readonly idempotencyKey?: string;
}

/**
 * A job of any kind of `Payloads` (a kind → payload type map, such as `PayloadsOf<typeof
 * handlers>` from `@nudge/engine`), as a union discriminated by `kind`: the payload's type
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

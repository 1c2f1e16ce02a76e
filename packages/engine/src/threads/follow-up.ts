import { describeValue, NudgeError, validateJobInput, type DependencyRef, type JobInput } from '@nudge/core';
import type { FollowUpInput } from '@nudge/store';

/** A follow-up job as a thread sends it: a {@link FollowUpInput} with `runAt` as ISO text. */
export type FollowUpWire = Omit<FollowUpInput, 'runAt'> & { readonly runAt?: string };

/**
 * Checks one `ctx.enqueue` call by the job contract of `@nudge/core` (the same rules and messages
 * as `POST /jobs` and the client) and returns the follow-up to send with the attempt's result.
 * `position` is its place among the attempt's follow-ups, which are one batch: a `dependsOn`
 * entry `{ index }` must name an earlier one.
 * @throws NudgeError `INVALID_REQUEST` naming the field by its JSON Pointer (`/priority must be
 *   an integer from -1000 to 1000 (got 5000)`), `PAYLOAD_UNSTORABLE` or `PAYLOAD_TOO_DEEP` for a
 *   payload no dialect stores alike
 */
export function followUpOf(
  kind: unknown,
  payload: unknown,
  options: unknown,
  position: number,
): FollowUpWire {
  if (options !== undefined && (typeof options !== 'object' || options === null || Array.isArray(options))) {
    throw new NudgeError(
      'INVALID_REQUEST',
      `ctx.enqueue options must be an object (got ${describeValue(options)})`,
    );
  }
  const o = (options ?? {}) as Record<string, unknown>;
  for (const field of ['kind', 'payload'] as const) {
    if (field in o) {
      throw new NudgeError('INVALID_REQUEST', `/${field} is an argument of ctx.enqueue, not an option`);
    }
  }
  const job = { kind, ...(payload === undefined ? {} : { payload }), ...o };
  validateJobInput(job, '', 'date', position);
  const input = job as JobInput<string, unknown>;
  return {
    kind: input.kind,
    ...(payload === undefined ? {} : { payloadJson: JSON.stringify(payload) }),
    ...(input.queue === undefined ? {} : { queue: input.queue }),
    ...(input.priority === undefined ? {} : { priority: input.priority }),
    ...(input.maxAttempts === undefined ? {} : { maxAttempts: input.maxAttempts }),
    ...(input.idempotencyKey === undefined ? {} : { idempotencyKey: input.idempotencyKey }),
    ...(input.concurrencyKey === undefined ? {} : { concurrencyKey: input.concurrencyKey }),
    ...(input.runAt === undefined ? {} : { runAt: input.runAt.toISOString() }),
    ...(input.delayMs === undefined ? {} : { delayMs: input.delayMs }),
    ...(input.throttle === undefined ? {} : { throttle: { ...input.throttle } }),
    ...(input.debounce === undefined ? {} : { debounce: { ...input.debounce } }),
    ...(input.dependsOn === undefined ? {} : { dependsOn: input.dependsOn.map(copyRef) }),
    ...(input.onDependencyFailure === undefined ? {} : { onDependencyFailure: input.onDependencyFailure }),
  };
}

/** A `dependsOn` entry as a plain value, whatever object the handler passed. */
const copyRef = (ref: DependencyRef): DependencyRef => (typeof ref === 'number' ? ref : { index: ref.index });

/** The follow-ups a thread sent, as the store takes them (`runAt` back to a `Date`). */
export function toFollowUpInputs(wire: readonly FollowUpWire[]): FollowUpInput[] {
  return wire.map((f) => (f.runAt === undefined ? (f as FollowUpInput) : { ...f, runAt: new Date(f.runAt) }));
}

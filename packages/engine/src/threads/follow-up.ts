import { findUnstorableJson, unstorableText } from '@nudge/core';
import type { FollowUpInput } from '@nudge/store';

/** A follow-up job as a thread sends it: a {@link FollowUpInput} with `runAt` as ISO text. */
export type FollowUpWire = Omit<FollowUpInput, 'runAt'> & { readonly runAt?: string };

/** Lowest and highest values of the integer columns (PostgreSQL `integer`). */
const INT_MIN = -2_147_483_648;
const INT_MAX = 2_147_483_647;

/** Longest `delayMs` of a follow-up: 10 years, in ms. */
export const MAX_FOLLOW_UP_DELAY_MS = 10 * 365 * 86_400_000;

/** A value as an error message quotes it. */
function shown(value: unknown): string {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'an invalid Date' : value.toISOString();
  if (value === null || typeof value !== 'object') return String(value);
  return Array.isArray(value) ? 'an array' : 'an object';
}

function text(name: string, value: unknown): string {
  if (typeof value !== 'string' || value === '') {
    throw new TypeError(
      `ctx.enqueue: ${name} must be a non-empty string (got ${JSON.stringify(value) ?? typeof value})`,
    );
  }
  const problem = unstorableText(value);
  if (problem) throw new TypeError(`ctx.enqueue: ${name} ${problem}`);
  return value;
}

function whole(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new TypeError(`ctx.enqueue: ${name} must be a whole number (got ${shown(value)})`);
  }
  if (value < min || value > max) {
    throw new RangeError(`ctx.enqueue: ${name} must be from ${min} to ${max} (got ${value})`);
  }
  return value;
}

/**
 * Checks one `ctx.enqueue` call and returns the follow-up to send with the attempt's result.
 * @throws TypeError when the kind, payload or an option has the wrong type or is not storable
 * @throws RangeError when an option is out of range
 */
export function followUpOf(kind: unknown, payload: unknown, options: unknown): FollowUpWire {
  const followUp: { -readonly [K in keyof FollowUpWire]: FollowUpWire[K] } = { kind: text('kind', kind) };
  if (payload !== undefined) {
    const problem = findUnstorableJson(payload);
    if (problem) {
      throw new TypeError(`ctx.enqueue: payload${problem.path} cannot be stored: ${problem.reason}`);
    }
    followUp.payloadJson = JSON.stringify(payload);
  }
  if (options === undefined) return followUp;
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`ctx.enqueue: options must be an object (got ${shown(options)})`);
  }
  const o = options as Record<string, unknown>;
  if (o.queue !== undefined) followUp.queue = text('queue', o.queue);
  if (o.priority !== undefined) followUp.priority = whole('priority', o.priority, INT_MIN, INT_MAX);
  if (o.maxAttempts !== undefined) followUp.maxAttempts = whole('maxAttempts', o.maxAttempts, 1, INT_MAX);
  if (o.idempotencyKey !== undefined) followUp.idempotencyKey = text('idempotencyKey', o.idempotencyKey);
  if (o.runAt !== undefined && o.delayMs !== undefined) {
    throw new TypeError('ctx.enqueue: give runAt or delayMs, not both');
  }
  if (o.runAt !== undefined) {
    if (!(o.runAt instanceof Date) || Number.isNaN(o.runAt.getTime())) {
      throw new TypeError(`ctx.enqueue: runAt must be a valid Date (got ${shown(o.runAt)})`);
    }
    followUp.runAt = o.runAt.toISOString();
  }
  if (o.delayMs !== undefined) {
    if (typeof o.delayMs !== 'number' || !Number.isFinite(o.delayMs)) {
      throw new TypeError(`ctx.enqueue: delayMs must be a finite number of ms (got ${shown(o.delayMs)})`);
    }
    if (o.delayMs < 0 || o.delayMs > MAX_FOLLOW_UP_DELAY_MS) {
      throw new RangeError(
        `ctx.enqueue: delayMs must be from 0 to ${MAX_FOLLOW_UP_DELAY_MS} (10 years) (got ${o.delayMs})`,
      );
    }
    followUp.delayMs = o.delayMs;
  }
  return followUp;
}

/** The follow-ups a thread sent, as the store takes them (`runAt` back to a `Date`). */
export function toFollowUpInputs(wire: readonly FollowUpWire[]): FollowUpInput[] {
  return wire.map((f) => (f.runAt === undefined ? (f as FollowUpInput) : { ...f, runAt: new Date(f.runAt) }));
}

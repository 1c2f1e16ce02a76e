import { Type } from '@sinclair/typebox';
import {
  DEDUPE_FIELD_EXPECTED,
  MAX_DEBOUNCE_DELAY_MS,
  MAX_DEDUPE_KEY_LENGTH,
  MAX_THROTTLE_WINDOW_MS,
} from '@nudge/core';
import { characterString } from './character-string.js';
import { EXPECTED_KEYWORD } from './describe-value-error.js';

const dedupeKey = (description: string) =>
  characterString({
    minLength: 1,
    maxLength: MAX_DEDUPE_KEY_LENGTH,
    [EXPECTED_KEYWORD]: DEDUPE_FIELD_EXPECTED.key,
    description,
  });

/**
 * The `throttle` field of a job body: at most one job per kind and key is created in each window.
 * Not with `idempotencyKey` or `debounce`.
 */
export const throttleBodySchema = Type.Object(
  {
    key: dedupeKey('Windows are per kind and key.'),
    windowMs: Type.Integer({
      minimum: 1,
      maximum: MAX_THROTTLE_WINDOW_MS,
      [EXPECTED_KEYWORD]: DEDUPE_FIELD_EXPECTED.windowMs,
      description: "The window's length from its job's creation (database clock), in ms (at most 365 days).",
    }),
  },
  {
    additionalProperties: false,
    [EXPECTED_KEYWORD]: DEDUPE_FIELD_EXPECTED.throttle,
    description:
      'At most one job of this kind and key is created per window: while the window is open, an enqueue creates nothing and answers 200 with the window’s job. A window lasts while its job is kept. Not with idempotencyKey or debounce.',
  },
);

/**
 * The `debounce` field of a job body: one job per kind and key waits `SCHEDULED`; each enqueue
 * replaces its payload and moves its start. Not with `runAt`, `delayMs`, `idempotencyKey` or
 * `throttle`.
 */
export const debounceBodySchema = Type.Object(
  {
    key: dedupeKey('One waiting job per kind and key.'),
    delayMs: Type.Integer({
      minimum: 1,
      maximum: MAX_DEBOUNCE_DELAY_MS,
      [EXPECTED_KEYWORD]: DEDUPE_FIELD_EXPECTED.delayMs,
      description:
        'The job starts this long after the latest enqueue (database clock), in ms (at most 365 days).',
    }),
  },
  {
    additionalProperties: false,
    [EXPECTED_KEYWORD]: DEDUPE_FIELD_EXPECTED.debounce,
    description:
      'While a job of this kind and key waits SCHEDULED, an enqueue replaces its payload, moves its start to now + delayMs and answers 200 with it; otherwise a new job is created, SCHEDULED at now + delayMs. Not with runAt, delayMs, idempotencyKey or throttle.',
  },
);

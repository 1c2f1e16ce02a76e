import { Type, type Static } from '@sinclair/typebox';
import { QUEUE_NAME_PATTERN, type JsonValue } from '@nudge/core';
import { MAX_DELAY_MS, type EnqueueInput } from '@nudge/store';
import { DATE_TIME_FORMAT } from './date-time-format.js';
import { EXPECTED_KEYWORD } from './describe-value-error.js';

/** Longest job kind accepted, in characters. */
export const MAX_KIND_LENGTH = 200;
/** Longest idempotency key accepted, in characters. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 200;
/** Range of `priority`; lower runs first. */
export const PRIORITY_RANGE = { minimum: -1000, maximum: 1000 } as const;
/** How a validation message describes a queue name. */
export const QUEUE_NAME_EXPECTED = "a queue name: 1 to 100 letters, digits, '_', '.' or '-'";

/** Range of `maxAttempts`. */
export const MAX_ATTEMPTS_RANGE = { minimum: 1, maximum: 1000 } as const;

/**
 * Body of `POST /jobs`. Only `kind` is required; an omitted `maxAttempts` takes the kind's
 * declared default, and other omitted fields the store's defaults (`payload` `{}`, `queue` `default` unless
 * the kind declares one, `priority` 0,
 * `runAt` the database's now, `maxAttempts` 5). `delayMs` (0 to 365 days, added to the
 * database's clock) and `runAt` are mutually exclusive. Unknown properties are refused rather
 * than dropped, so a misspelt field is never silently ignored.
 */
export const createJobBodySchema = Type.Object(
  {
    kind: Type.String({
      minLength: 1,
      maxLength: MAX_KIND_LENGTH,
      description: 'Name of the handler to run; one of the kinds the handler module exports.',
    }),
    payload: Type.Optional(Type.Unknown({ description: 'Handler input, any JSON value. Default `{}`.' })),
    queue: Type.Optional(
      Type.String({
        pattern: QUEUE_NAME_PATTERN,
        [EXPECTED_KEYWORD]: QUEUE_NAME_EXPECTED,
        description: 'The named queue the job waits in. Default `default`.',
      }),
    ),
    priority: Type.Optional(Type.Integer({ ...PRIORITY_RANGE, description: 'Lower runs first. Default 0.' })),
    runAt: Type.Optional(
      Type.String({
        format: DATE_TIME_FORMAT,
        [EXPECTED_KEYWORD]:
          'an ISO-8601 date-time with a time zone from 1970 to 9999, such as 2030-01-01T09:00:00Z',
        description: 'Earliest start. Default: now.',
      }),
    ),
    delayMs: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_DELAY_MS,
        description:
          "Earliest start as a delay from the database's clock at insert, in ms (at most 365 days). Not with runAt.",
      }),
    ),
    maxAttempts: Type.Optional(
      Type.Integer({
        ...MAX_ATTEMPTS_RANGE,
        description: "Attempts before the job is FAILED. Default: the kind's declared maxAttempts, else 5.",
      }),
    ),
    idempotencyKey: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_IDEMPOTENCY_KEY_LENGTH,
        description:
          'While a job of this kind with this key is kept, enqueueing it again creates nothing and answers the existing job.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** The static type of {@link createJobBodySchema}. */
export type CreateJobBody = Static<typeof createJobBodySchema>;

/** The store's input for a validated body: `runAt` as a `Date`, the payload as JSON. */
export function toEnqueueInput(body: CreateJobBody): EnqueueInput {
  return {
    kind: body.kind,
    // The body came from JSON.parse, so any value in it is JSON.
    payload: body.payload as JsonValue | undefined,
    queue: body.queue,
    priority: body.priority,
    runAt: body.runAt === undefined ? undefined : new Date(body.runAt),
    delayMs: body.delayMs,
    maxAttempts: body.maxAttempts,
    idempotencyKey: body.idempotencyKey,
  };
}

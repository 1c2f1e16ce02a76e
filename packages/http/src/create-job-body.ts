import { Type, type Static } from '@sinclair/typebox';
import {
  DEPENDENCY_FAILURE_MODES,
  JOB_FIELD_EXPECTED,
  MAX_DEPENDENCIES,
  MAX_ATTEMPTS_RANGE,
  MAX_DELAY_MS,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  MAX_CONCURRENCY_KEY_LENGTH,
  MAX_KIND_LENGTH,
  PRIORITY_RANGE,
  QUEUE_NAME_PATTERN,
  jobInputProblem,
  type JsonValue,
} from '@nudge/core';
import type { EnqueueInput } from '@nudge/store';
import { characterString } from './character-string.js';
import { DATE_TIME_FORMAT } from './date-time-format.js';
import { debounceBodySchema, throttleBodySchema } from './dedupe-body-fields.js';
import { EXPECTED_KEYWORD } from './describe-value-error.js';
import { checkBodyWith } from './typebox-validator-compiler.js';

/** How a validation message describes a queue name (the job contract's words). */
export const QUEUE_NAME_EXPECTED = JOB_FIELD_EXPECTED.queue;

/**
 * Body of `POST /jobs`. Only `kind` is required; an omitted `maxAttempts` takes the kind's
 * declared default, and other omitted fields the store's defaults (`payload` `{}`, `queue` `default` unless
 * the kind declares one, `priority` 0,
 * `runAt` the database's now, `maxAttempts` 5). `delayMs` (0 to 365 days, added to the
 * database's clock) and `runAt` are mutually exclusive; `throttle` and `debounce` dedupe repeated
 * enqueues (see their fields). Unknown properties are refused rather
 * than dropped, so a misspelt field is never silently ignored.
 */
export const createJobBodySchema = Type.Object(
  {
    kind: characterString({
      minLength: 1,
      maxLength: MAX_KIND_LENGTH,
      [EXPECTED_KEYWORD]: JOB_FIELD_EXPECTED.kind,
      description: 'Name of the handler to run; one of the kinds the handler module exports.',
    }),
    payload: Type.Optional(Type.Unknown({ description: 'Handler input, any JSON value. Default `{}`.' })),
    queue: Type.Optional(
      Type.String({
        pattern: QUEUE_NAME_PATTERN,
        [EXPECTED_KEYWORD]: JOB_FIELD_EXPECTED.queue,
        description: 'The named queue the job waits in. Default `default`.',
      }),
    ),
    priority: Type.Optional(
      Type.Integer({
        ...PRIORITY_RANGE,
        [EXPECTED_KEYWORD]: JOB_FIELD_EXPECTED.priority,
        description: 'Lower runs first. Default 0.',
      }),
    ),
    runAt: Type.Optional(
      Type.String({
        format: DATE_TIME_FORMAT,
        [EXPECTED_KEYWORD]: JOB_FIELD_EXPECTED.runAt,
        description: 'Earliest start. Default: now.',
      }),
    ),
    delayMs: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_DELAY_MS,
        [EXPECTED_KEYWORD]: JOB_FIELD_EXPECTED.delayMs,
        description:
          "Earliest start as a delay from the database's clock at insert, in ms (at most 365 days). Not with runAt.",
      }),
    ),
    maxAttempts: Type.Optional(
      Type.Integer({
        ...MAX_ATTEMPTS_RANGE,
        [EXPECTED_KEYWORD]: JOB_FIELD_EXPECTED.maxAttempts,
        description: "Attempts before the job is FAILED. Default: the kind's declared maxAttempts, else 5.",
      }),
    ),
    idempotencyKey: Type.Optional(
      characterString({
        minLength: 1,
        maxLength: MAX_IDEMPOTENCY_KEY_LENGTH,
        [EXPECTED_KEYWORD]: JOB_FIELD_EXPECTED.idempotencyKey,
        description:
          'While a job of this kind with this key is kept, enqueueing it again creates nothing and answers the existing job.',
      }),
    ),
    concurrencyKey: Type.Optional(
      characterString({
        minLength: 1,
        maxLength: MAX_CONCURRENCY_KEY_LENGTH,
        [EXPECTED_KEYWORD]: JOB_FIELD_EXPECTED.concurrencyKey,
        description:
          'A customer, repository or account: in a queue with keyConcurrency k, at most k jobs with this key run at once across the cluster; other keys are not held up.',
      }),
    ),
    dependsOn: Type.Optional(
      Type.Array(
        Type.Union([
          Type.Integer({ minimum: 1, description: 'The id of an existing job.' }),
          Type.Object(
            {
              index: Type.Integer({
                minimum: 0,
                description:
                  'POST /jobs/batch only: the 0-based position of an earlier job of the same batch.',
              }),
            },
            { additionalProperties: false },
          ),
        ]),
        {
          maxItems: MAX_DEPENDENCIES,
          [EXPECTED_KEYWORD]: JOB_FIELD_EXPECTED.dependsOn,
          description:
            'Jobs that must finish first: the job is WAITING until each has finished, then PENDING (SCHEDULED while its own start is ahead). A dependency that already finished counts at once; an unknown id answers 400 DEPENDENCY_NOT_FOUND.',
        },
      ),
    ),
    onDependencyFailure: Type.Optional(
      Type.Union(
        DEPENDENCY_FAILURE_MODES.map((mode) => Type.Literal(mode)),
        {
          [EXPECTED_KEYWORD]: JOB_FIELD_EXPECTED.onDependencyFailure,
          description:
            "What a dependency that ends FAILED or CANCELLED does: 'cancel' cancels this job (and the jobs waiting for it), 'run' runs it anyway once every dependency finished. Default 'cancel'.",
        },
      ),
    ),
    throttle: Type.Optional(throttleBodySchema),
    debounce: Type.Optional(debounceBodySchema),
  },
  { additionalProperties: false },
);

// The schema documents the body and types it; the job contract of `@nudge/core` checks it, so
// `POST /jobs` answers with the same code and message as every other enqueue path.
checkBodyWith(createJobBodySchema, (body) => jobInputProblem(body, '', 'text'));

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
    concurrencyKey: body.concurrencyKey,
    dependsOn: body.dependsOn,
    onDependencyFailure: body.onDependencyFailure,
    throttle: body.throttle,
    debounce: body.debounce,
  };
}

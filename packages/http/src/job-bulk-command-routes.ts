import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type TSchema } from '@sinclair/typebox';
import {
  CANCELLABLE_STATUSES,
  JOB_FIELD_EXPECTED,
  MAX_KIND_LENGTH,
  QUEUE_NAME_PATTERN,
  RETRYABLE_STATUSES,
  type JobStatus,
} from '@nudge/core';
import { characterString } from './character-string.js';
import type { EnginePort } from './engine-port.js';
import { DATE_TIME_FORMAT } from './date-time-format.js';
import { EXPECTED_KEYWORD } from './describe-value-error.js';
import { errorBodySchema } from './error-body.js';
import { retryStepsFields } from './retry-steps-fields.js';

const errors = { '4xx': errorBodySchema, '5xx': errorBodySchema };

const statusOf = (statuses: readonly JobStatus[]) =>
  Type.Union(
    statuses.map((status) => Type.Literal(status)),
    { [EXPECTED_KEYWORD]: `one of ${statuses.join(', ')}` },
  );

const dateTime = (description: string) =>
  Type.Optional(
    Type.String({ format: DATE_TIME_FORMAT, [EXPECTED_KEYWORD]: JOB_FIELD_EXPECTED.runAt, description }),
  );

/** The filters both bulk commands share: kind, queue and a total limit. */
const commonFilters = {
  kind: Type.Optional(
    characterString({
      minLength: 1,
      maxLength: MAX_KIND_LENGTH,
      [EXPECTED_KEYWORD]: JOB_FIELD_EXPECTED.kind,
      description: 'Only jobs of this kind.',
    }),
  ),
  queue: Type.Optional(
    Type.String({
      pattern: QUEUE_NAME_PATTERN,
      [EXPECTED_KEYWORD]: JOB_FIELD_EXPECTED.queue,
      description: 'Only jobs of this queue.',
    }),
  ),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      [EXPECTED_KEYWORD]: 'a whole number from 1',
      description: 'Most jobs changed in all. Default: every matching job.',
    }),
  ),
} satisfies Record<string, TSchema>;

/** Body of `POST /jobs/retry`. */
export const retryJobsBodySchema = Type.Object(
  {
    status: statusOf(RETRYABLE_STATUSES),
    ...commonFilters,
    finishedAfter: dateTime('Only jobs finished at or after this time.'),
    finishedBefore: dateTime('Only jobs finished before this time.'),
    ...retryStepsFields,
  },
  { additionalProperties: false },
);

/** Body of `POST /jobs/cancel`. */
export const cancelJobsBodySchema = Type.Object(
  {
    status: Type.Optional(
      Type.Union(
        [statusOf(CANCELLABLE_STATUSES), Type.Array(statusOf(CANCELLABLE_STATUSES), { minItems: 1 })],
        {
          [EXPECTED_KEYWORD]: `one or more of ${CANCELLABLE_STATUSES.join(', ')}`,
          description: `The statuses to cancel, one or a list. Default: all of ${CANCELLABLE_STATUSES.join(', ')}.`,
        },
      ),
    ),
    ...commonFilters,
    createdAfter: dateTime('Only jobs created at or after this time.'),
    createdBefore: dateTime('Only jobs created before this time.'),
  },
  { additionalProperties: false },
);

/** The count of jobs a bulk command left as they were because the database refused their row. */
const isolated = Type.Integer({
  description:
    'Jobs the database refused, each for a reason of its own row (a constraint, a trigger): left as they were, with `lastError` saying why; `nudge_isolated_writes_total` counts them.',
});

const date = (text: string | undefined): Date | undefined =>
  text === undefined ? undefined : new Date(text);

/**
 * Bulk job commands, for every job matching a filter, a page of at most 1,000 jobs per statement
 * (so a million jobs never hold a long lock); each job changes exactly as its single command
 * changes it.
 *
 * - `POST /jobs/retry` with `{ status: 'FAILED' | 'CANCELLED', kind?, queue?, finishedAfter?,
 *   finishedBefore?, limit?, fromStep?, resetSteps? }`: those jobs that finished before the
 *   request become `PENDING` with fresh attempts, as `POST /jobs/:id/retry` does. Their steps are
 *   kept, or cleared in each page's statement: `resetSteps` clears all of each job's;
 *   `fromStep` clears that step and the ones after it in each job that recorded it, and keeps
 *   every step of a job that did not (it had not reached that step). Answers
 *   `200 { retried, isolated }`.
 * - `POST /jobs/cancel` with `{ status?, kind?, queue?, createdAfter?, createdBefore?, limit? }`
 *   (`status`: one or a list of the statuses a job can be cancelled from; all of them when
 *   omitted, so `{}` cancels every unfinished job): those jobs that existed when the request came
 *   become `CANCELLED`, as `POST /jobs/:id/cancel` does (a running attempt is aborted through
 *   `ctx.signal`: at once on this instance, within one heartbeat on another). Answers
 *   `200 { cancelled, isolated }`.
 *
 * `isolated` counts the jobs the database refused for a reason of their own row, left as they
 * were (see `Store.onIsolatedWrite`).
 *
 * Time bounds are half-open: `…After` inclusive, `…Before` exclusive. A body that does not match
 * (a status the command does not apply to, a limit below 1, an empty time range) answers
 * `400 INVALID_REQUEST` and changes nothing.
 */
export const jobBulkCommandRoutes: FastifyPluginAsyncTypebox<{ engine: EnginePort }> = async (
  app,
  { engine },
) => {
  app.post(
    '/jobs/retry',
    {
      schema: {
        body: retryJobsBodySchema,
        response: {
          200: Type.Object({ retried: Type.Integer({ description: 'Jobs retried.' }), isolated }),
          ...errors,
        },
      },
    },
    async (request) => {
      const body = request.body;
      const result = await engine.retryMany({
        status: body.status,
        kind: body.kind,
        queue: body.queue,
        finishedAfter: date(body.finishedAfter),
        finishedBefore: date(body.finishedBefore),
        limit: body.limit,
        fromStep: body.fromStep,
        resetSteps: body.resetSteps,
      });
      return { retried: result.changed, isolated: result.isolated };
    },
  );
  app.post(
    '/jobs/cancel',
    {
      schema: {
        body: cancelJobsBodySchema,
        response: {
          200: Type.Object({ cancelled: Type.Integer({ description: 'Jobs cancelled.' }), isolated }),
          ...errors,
        },
      },
    },
    async (request) => {
      const body = request.body;
      const result = await engine.cancelMany({
        statuses: body.status === undefined ? undefined : [body.status].flat(),
        kind: body.kind,
        queue: body.queue,
        createdAfter: date(body.createdAfter),
        createdBefore: date(body.createdBefore),
        limit: body.limit,
      });
      return { cancelled: result.changed, isolated: result.isolated };
    },
  );
};

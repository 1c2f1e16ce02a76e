import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import {
  QUEUE_CONCURRENCY_RANGE,
  QUEUE_LIMIT_EXPECTED,
  QUEUE_NAME_PATTERN,
  RATE_INTERVAL_MS_RANGE,
  RATE_LIMIT_RANGE,
} from '@nudge/core';
import type { QueueState, Store } from '@nudge/store';
import { QUEUE_NAME_EXPECTED } from './create-job-body.js';
import { EXPECTED_KEYWORD } from './describe-value-error.js';
import { errorBodySchema } from './error-body.js';
import { namePageLimit, namePageLimitSchema } from './name-page-query.js';

/** A queue as the API shows it. */
export const queueViewSchema = Type.Object(
  {
    name: Type.String(),
    paused: Type.Boolean({ description: 'No instance claims its jobs while paused.' }),
    updatedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When it was last paused, resumed or given limits; null if never.',
    }),
    concurrency: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Most jobs of the queue running at once across all instances; null for no limit.',
    }),
    rateLimit: Type.Union(
      [
        Type.Object({ limit: Type.Integer(), intervalMs: Type.Integer() }, { additionalProperties: false }),
        Type.Null(),
      ],
      {
        description:
          'Most jobs of the queue started in any window of intervalMs (database clock); null for no limit.',
      },
    ),
    keyConcurrency: Type.Union([Type.Integer(), Type.Null()], {
      description:
        'Most jobs with one concurrencyKey running at once across all instances; null for no limit.',
    }),
    waiting: Type.Integer({ description: 'Jobs waiting for their dependencies (WAITING).' }),
    scheduled: Type.Integer({ description: 'Jobs not due yet.' }),
    pending: Type.Integer({ description: 'Jobs due and waiting.' }),
    running: Type.Integer({ description: 'Jobs running now.' }),
  },
  { additionalProperties: false },
);

/** The static type of {@link queueViewSchema}. */
export type QueueView = Static<typeof queueViewSchema>;

/** The API view of a queue. */
export const toQueueView = (queue: QueueState): QueueView => ({
  ...queue,
  updatedAt: queue.updatedAt?.toISOString() ?? null,
});

const paramsSchema = Type.Object({
  name: Type.String({ pattern: QUEUE_NAME_PATTERN, [EXPECTED_KEYWORD]: QUEUE_NAME_EXPECTED }),
});

const errors = { '4xx': errorBodySchema, '5xx': errorBodySchema };

/** Query of `GET /queues`: a page of queues by name. */
export const listQueuesQuerySchema = Type.Object(
  {
    limit: namePageLimitSchema(1, 'Queues per page.'),
    cursor: Type.Optional(
      Type.String({
        pattern: QUEUE_NAME_PATTERN,
        [EXPECTED_KEYWORD]: 'the nextCursor of the previous page',
        description: 'The nextCursor of the previous page: the queues after it are listed.',
      }),
    ),
  },
  { additionalProperties: false },
);

const queuePageSchema = Type.Object({
  queues: Type.Array(queueViewSchema),
  nextCursor: Type.Union([Type.String(), Type.Null()], {
    description: 'Pass as `cursor` for the next page; null when no queue follows.',
  }),
});

const concurrencySchema = (field: 'concurrency' | 'keyConcurrency', description: string) =>
  Type.Optional(
    Type.Union([Type.Integer({ ...QUEUE_CONCURRENCY_RANGE }), Type.Null()], {
      [EXPECTED_KEYWORD]: QUEUE_LIMIT_EXPECTED[field],
      description,
    }),
  );

/** The body of `PATCH /queues/:name`: the limits to set (a number) or remove (`null`). */
export const queueLimitsPatchSchema = Type.Object(
  {
    concurrency: concurrencySchema(
      'concurrency',
      'Most jobs of the queue running at once across all instances.',
    ),
    rateLimit: Type.Optional(
      Type.Union(
        [
          Type.Object(
            {
              limit: Type.Integer({
                ...RATE_LIMIT_RANGE,
                [EXPECTED_KEYWORD]: QUEUE_LIMIT_EXPECTED.limit,
                description: 'Most starts per window.',
              }),
              intervalMs: Type.Integer({
                ...RATE_INTERVAL_MS_RANGE,
                [EXPECTED_KEYWORD]: QUEUE_LIMIT_EXPECTED.intervalMs,
                description: 'The window, in ms.',
              }),
            },
            { additionalProperties: false },
          ),
          Type.Null(),
        ],
        {
          [EXPECTED_KEYWORD]: QUEUE_LIMIT_EXPECTED.rateLimit,
          description: 'Most jobs of the queue started in any window of intervalMs, by the database clock.',
        },
      ),
    ),
    keyConcurrency: concurrencySchema(
      'keyConcurrency',
      'Most jobs with one concurrencyKey running at once across all instances; other keys are not held up.',
    ),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    [EXPECTED_KEYWORD]: 'an object with at least one of concurrency, rateLimit, keyConcurrency',
  },
);

/**
 * Named queues.
 *
 * - `GET /queues`: the queues with unfinished jobs or a record (a pause, limits), with their
 *   counts, by name, a page at a time: `limit` (default 100, at most 500) after `cursor`.
 * - `POST /queues/:name/pause` and `POST /queues/:name/resume`: stored in the database, so every
 *   instance obeys from its next claim (within one poll interval); a running job of the queue
 *   finishes. A queue may be paused before it has any job. Both are idempotent and answer `200`
 *   with the queue.
 * - `PATCH /queues/:name` (scope `admin`): sets (a number) or removes (`null`) the queue's
 *   cluster-wide limits, `concurrency`, `rateLimit` and `keyConcurrency`; a field left out keeps
 *   its value. Enforced inside every instance's claim from its next one on; jobs already running
 *   keep running. Answers `200` with the queue.
 */
export const queueRoutes: FastifyPluginAsyncTypebox<{ store: Store; requestClaim: () => void }> = async (
  app,
  { store, requestClaim },
) => {
  app.get(
    '/queues',
    { schema: { querystring: listQueuesQuerySchema, response: { 200: queuePageSchema, ...errors } } },
    async (request) => {
      const limit = namePageLimit(request.query.limit);
      const queues = await store.listQueues({
        limit,
        ...(request.query.cursor && { after: request.query.cursor }),
      });
      return {
        queues: queues.map(toQueueView),
        nextCursor: queues.length === limit ? (queues.at(-1)?.name ?? null) : null,
      };
    },
  );
  const schema = { params: paramsSchema, response: { 200: queueViewSchema, ...errors } };
  app.post('/queues/:name/pause', { schema }, async (request) =>
    toQueueView(await store.setQueuePaused(request.params.name, true)),
  );
  app.patch(
    '/queues/:name',
    {
      schema: {
        params: paramsSchema,
        body: queueLimitsPatchSchema,
        response: { 200: queueViewSchema, ...errors },
      },
    },
    async (request) => {
      const queue = toQueueView(await store.setQueueLimits(request.params.name, request.body));
      // A limit raised or lifted may let waiting jobs start now.
      requestClaim();
      return queue;
    },
  );
  app.post('/queues/:name/resume', { schema }, async (request) => {
    const queue = toQueueView(await store.setQueuePaused(request.params.name, false));
    requestClaim();
    return queue;
  });
};

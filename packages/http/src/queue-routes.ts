import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import { QUEUE_NAME_PATTERN } from '@nudge/core';
import type { QueueState, Store } from '@nudge/store';
import { QUEUE_NAME_EXPECTED } from './create-job-body.js';
import { EXPECTED_KEYWORD } from './describe-value-error.js';
import { errorBodySchema } from './error-body.js';

/** A queue as the API shows it. */
export const queueViewSchema = Type.Object(
  {
    name: Type.String(),
    paused: Type.Boolean({ description: 'No instance claims its jobs while paused.' }),
    updatedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When it was last paused or resumed; null if never.',
    }),
    scheduled: Type.Integer({ description: 'Jobs not due yet.' }),
    pending: Type.Integer({ description: 'Jobs due and waiting.' }),
    running: Type.Integer({ description: 'Jobs running now.' }),
  },
  { additionalProperties: false },
);

/** The static type of {@link queueViewSchema}. */
export type QueueView = Static<typeof queueViewSchema>;

const toQueueView = (queue: QueueState): QueueView => ({
  ...queue,
  updatedAt: queue.updatedAt?.toISOString() ?? null,
});

const paramsSchema = Type.Object({
  name: Type.String({ pattern: QUEUE_NAME_PATTERN, [EXPECTED_KEYWORD]: QUEUE_NAME_EXPECTED }),
});

const errors = { '4xx': errorBodySchema, '5xx': errorBodySchema };

/**
 * Named queues.
 *
 * - `GET /queues`: every queue with unfinished jobs or a pause record, with its counts.
 * - `POST /queues/:name/pause` and `POST /queues/:name/resume`: stored in the database, so every
 *   instance obeys from its next claim (within one poll interval); a running job of the queue
 *   finishes. A queue may be paused before it has any job. Both are idempotent and answer `200`
 *   with the queue.
 */
export const queueRoutes: FastifyPluginAsyncTypebox<{ store: Store; requestClaim: () => void }> = async (
  app,
  { store, requestClaim },
) => {
  app.get(
    '/queues',
    { schema: { response: { 200: Type.Object({ queues: Type.Array(queueViewSchema) }), ...errors } } },
    async () => ({ queues: (await store.listQueues()).map(toQueueView) }),
  );
  const schema = { params: paramsSchema, response: { 200: queueViewSchema, ...errors } };
  app.post('/queues/:name/pause', { schema }, async (request) =>
    toQueueView(await store.setQueuePaused(request.params.name, true)),
  );
  app.post('/queues/:name/resume', { schema }, async (request) => {
    const queue = toQueueView(await store.setQueuePaused(request.params.name, false));
    requestClaim();
    return queue;
  });
};

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { NudgeError } from '@nudge/core';
import type { Store } from '@nudge/store';
import { EXPECTED_KEYWORD } from './describe-value-error.js';
import { errorBodySchema } from './error-body.js';

/** Most buckets one read returns. */
export const MAX_ACTIVITY_BUCKETS = 1440;
/** Longest window, in ms: 7 days. */
export const MAX_ACTIVITY_WINDOW_MS = 7 * 86_400_000;

const msParam = (fallback: number) =>
  Type.Optional(
    Type.String({
      pattern: '^[1-9][0-9]{0,9}$',
      [EXPECTED_KEYWORD]: 'a whole number of ms',
      description: `In ms; default ${fallback}.`,
    }),
  );

const bucketSchema = Type.Object({
  start: Type.String({ format: 'date-time', description: 'Start of the bucket (database clock).' }),
  succeeded: Type.Integer(),
  failed: Type.Integer(),
  latencyAvgMs: Type.Union([Type.Number(), Type.Null()], {
    description: 'Mean enqueue → start wait of the jobs that finished on their first attempt, in ms.',
  }),
  latencyMaxMs: Type.Union([Type.Number(), Type.Null()]),
});

/**
 * `GET /activity?windowMs=3600000&bucketMs=60000`: jobs that finished (`SUCCEEDED`, `FAILED`) in
 * the last `windowMs` (default one hour, at most 7 days) per bucket of `bucketMs` (default one
 * minute; at most 1,440 buckets), oldest first, with their enqueue → start wait: throughput and
 * latency over time, as the dashboard charts them. Buckets without a finished job are left out.
 */
export const activityRoute: FastifyPluginAsyncTypebox<{ store: Store }> = async (app, { store }) => {
  app.get(
    '/activity',
    {
      schema: {
        querystring: Type.Object(
          { windowMs: msParam(3_600_000), bucketMs: msParam(60_000) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            windowMs: Type.Integer(),
            bucketMs: Type.Integer(),
            buckets: Type.Array(bucketSchema),
          }),
          '4xx': errorBodySchema,
          '5xx': errorBodySchema,
        },
      },
    },
    async (request) => {
      const windowMs = Number(request.query.windowMs ?? 3_600_000);
      const bucketMs = Number(request.query.bucketMs ?? 60_000);
      if (windowMs > MAX_ACTIVITY_WINDOW_MS) {
        throw new NudgeError(
          'INVALID_REQUEST',
          `querystring/windowMs must be at most ${MAX_ACTIVITY_WINDOW_MS} (7 days)`,
        );
      }
      if (windowMs / bucketMs > MAX_ACTIVITY_BUCKETS) {
        throw new NudgeError(
          'INVALID_REQUEST',
          `querystring/bucketMs is too small for the window: at most ${MAX_ACTIVITY_BUCKETS} buckets (windowMs / bucketMs)`,
        );
      }
      const buckets = await store.activity({ windowMs, bucketMs });
      return {
        windowMs,
        bucketMs,
        buckets: buckets.map((bucket) => ({ ...bucket, start: bucket.start.toISOString() })),
      };
    },
  );
};

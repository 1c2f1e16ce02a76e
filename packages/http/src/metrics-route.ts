import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorBodySchema } from './error-body.js';
import type { NudgeMetrics } from './nudge-metrics.js';

/**
 * `GET /metrics`: the metrics of {@link NudgeMetrics} in Prometheus' text format (version 0.0.4),
 * for a Prometheus scrape. Needs the `read` scope when API keys are configured.
 */
export const metricsRoute: FastifyPluginAsyncTypebox<{ metrics: NudgeMetrics }> = async (
  app,
  { metrics },
) => {
  app.get(
    '/metrics',
    {
      schema: {
        description:
          'Prometheus metrics in the text exposition format; docs/reference/metrics.md lists them.',
        produces: ['text/plain'],
        response: {
          200: Type.String({ description: 'Prometheus text format, version 0.0.4.' }),
          '4xx': errorBodySchema,
          '5xx': errorBodySchema,
        },
      },
    },
    async (_request, reply) => {
      const text = await metrics.scrape();
      void reply.type(metrics.registry.contentType);
      return text;
    },
  );
};

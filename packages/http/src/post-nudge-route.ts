import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { EnginePort } from './engine-port.js';
import { errorBodySchema } from './error-body.js';
import type { NudgeMetrics } from './nudge-metrics.js';

/** Options of {@link nudgeRoute}. */
export interface NudgeRouteOptions {
  readonly engine: EnginePort;
  /** Counts the nudges received, when given. */
  readonly metrics?: NudgeMetrics | undefined;
}

/** Body of a `202` from `POST /nudge`. */
export const nudgeAcceptedSchema = Type.Object({ accepted: Type.Literal(true) });

/**
 * `POST /nudge`: requests a claim and answers `202 {accepted: true}` at once; the claim runs in
 * the background, coalesced with any other request. Producers call it after writing jobs to the
 * database themselves.
 *
 * Any body and content type is accepted and ignored (`curl -X POST` sends none; `curl -d ''`
 * sends a form type): this route's scope replaces the JSON-only parsers with one that discards
 * the body, still within the body limit.
 */
export const nudgeRoute: FastifyPluginAsyncTypebox<NudgeRouteOptions> = async (app, { engine, metrics }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, _body, done) => done(null, undefined));
  app.post(
    '/nudge',
    { schema: { response: { 202: nudgeAcceptedSchema, '4xx': errorBodySchema, '5xx': errorBodySchema } } },
    async (_request, reply) => {
      metrics?.nudged();
      engine.requestClaim();
      void reply.code(202);
      return { accepted: true as const };
    },
  );
};

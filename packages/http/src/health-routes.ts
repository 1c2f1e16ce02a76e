import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Store } from '@nudge/store';
import { errorBodySchema } from './error-body.js';
import { checkReadiness } from './check-readiness.js';

/** Options of {@link healthRoutes}. */
export interface HealthRoutesOptions {
  readonly store: Store;
}

/** Body of `GET /healthz`. */
export const healthSchema = Type.Object({ status: Type.Literal('ok') });

/** Body of a `200` from `GET /readyz`. */
export const readinessSchema = Type.Object({
  status: Type.Literal('ready'),
  schema: Type.Object({
    applied: Type.Integer({ description: 'Schema version of the database.' }),
    latest: Type.Integer({ description: 'Newest schema version this code knows.' }),
  }),
});

/**
 * Probes for an orchestrator.
 *
 * - `GET /healthz` (liveness): `200 {status: 'ok'}` while the process serves HTTP; it touches
 *   nothing else, so a database outage does not get the process restarted.
 * - `GET /readyz` (readiness): `200 {status: 'ready', schema}` when the database answers and its
 *   schema is the one this code needs, else `503 NOT_READY` saying which (see {@link checkReadiness}).
 */
export const healthRoutes: FastifyPluginAsyncTypebox<HealthRoutesOptions> = async (app, { store }) => {
  app.get('/healthz', { schema: { response: { 200: healthSchema } } }, async () => ({
    status: 'ok' as const,
  }));

  app.get(
    '/readyz',
    { schema: { response: { 200: readinessSchema, '5xx': errorBodySchema } } },
    async (request) => ({ status: 'ready' as const, schema: await checkReadiness(store, request.log) }),
  );
};

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Store } from '@nudge/store';
import type { EnginePort } from './engine-port.js';
import { activityRoute } from './activity-route.js';
import { healthRoutes } from './health-routes.js';
import { operatorRoutes } from './operator-routes.js';
import { jobBatchRoute } from './job-batch-route.js';
import { jobCommandRoutes } from './job-command-routes.js';
import { jobSignalRoute } from './job-signal-route.js';
import { jobLogsRoute } from './job-logs-route.js';
import { jobBulkCommandRoutes } from './job-bulk-command-routes.js';
import { jobDependentsRoute } from './job-dependents-route.js';
import { jobListRoute } from './job-list-route.js';
import { queueRoutes } from './queue-routes.js';
import { jobRoutes } from './job-routes.js';
import { nudgeRoute } from './post-nudge-route.js';
import { metricsRoute } from './metrics-route.js';
import type { NudgeMetrics } from './nudge-metrics.js';

/**
 * How recently an instance must have refreshed its registry row to count as live when no value
 * is given, in ms: `instanceLiveWithinMs` of `@nudge/engine` at the default `leaseMs` (six
 * leases of 30 s). A literal, so that the HTTP layer loads no engine code; a test keeps it equal.
 */
export const DEFAULT_INSTANCE_LIVE_WITHIN_MS = 180_000;

/** What the routes need: where jobs live, and the engine to trigger. */
export interface NudgeRoutesOptions {
  /** A migrated store. The routes never close it: its owner does, after the server closed. */
  readonly store: Store;
  /** The engine's kinds and claim trigger; an `Engine` fits as is. */
  readonly engine: EnginePort;
  /**
   * An instance seen within this many ms is live (`GET /instances`, `GET /stats`), as the
   * engine's unhandled-kinds check counts: three refreshes of its registry row
   * (`instanceLiveWithinMs` of `@nudge/engine`). @defaultValue {@link DEFAULT_INSTANCE_LIVE_WITHIN_MS}
   */
  readonly instanceLiveWithinMs?: number;
  /**
   * The metrics `GET /metrics` serves; the enqueue and nudge routes count into them. Without it
   * there is no `/metrics` route.
   */
  readonly metrics?: NudgeMetrics;
  /**
   * Whether an OpenTelemetry tracer provider is registered (the server started an SDK): each
   * enqueue then gets a `send` span, whose context its jobs carry. Without it, a job carries the
   * request's incoming `traceparent` header, if any. @defaultValue false
   */
  readonly tracing?: boolean;
}

/**
 * The Fastify plugin with every nudge route: `POST /jobs`, `POST /jobs/batch`, `GET /jobs`,
 * `GET /jobs/:id`, `GET /jobs/:id/logs`, `GET /jobs/:id/dependents`, `POST /jobs/:id/cancel`, `POST /jobs/:id/retry`, `POST /jobs/:id/signals`, `POST /jobs/cancel`,
 * `POST /jobs/retry`, `GET /queues`,
 * `POST /queues/:name/pause`, `POST /queues/:name/resume`, `GET /activity`, `GET /instances`,
 * `GET /stats`, `POST /nudge`, `GET /metrics` (given `metrics`), `GET /healthz`, `GET /readyz`. It registers no `onClose` hook;
 * shutting the engine and the store down in order is the caller's job.
 *
 * Register it on an app from {@link createHttpApp}, whose validator compiler and error handling
 * the routes rely on.
 */
export const nudgeRoutes: FastifyPluginAsyncTypebox<NudgeRoutesOptions> = async (
  app,
  { store, engine, metrics, instanceLiveWithinMs = DEFAULT_INSTANCE_LIVE_WITHIN_MS, tracing = false },
) => {
  await app.register(jobRoutes, { store, engine, metrics, tracing });
  await app.register(jobBatchRoute, { engine, metrics, tracing });
  await app.register(jobListRoute, { store });
  await app.register(jobDependentsRoute, { store });
  await app.register(jobCommandRoutes, { engine });
  await app.register(jobSignalRoute, { store, engine });
  await app.register(jobLogsRoute, { store });
  await app.register(jobBulkCommandRoutes, { engine });
  await app.register(activityRoute, { store });
  await app.register(queueRoutes, { store, requestClaim: () => engine.requestClaim() });
  await app.register(operatorRoutes, { store, instanceLiveWithinMs });
  await app.register(nudgeRoute, { engine, metrics });
  if (metrics) await app.register(metricsRoute, { metrics });
  await app.register(healthRoutes, { store });
};

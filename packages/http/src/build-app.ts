import { createHttpApp, type HttpAppOptions } from './create-http-app.js';
import type { NudgeHttpApp } from './nudge-http-app.js';
import { nudgeRoutes, type NudgeRoutesOptions } from './nudge-routes.js';

/** Options of {@link buildApp}: the routes' needs plus the server settings. */
export interface BuildAppOptions extends HttpAppOptions, NudgeRoutesOptions {}

/**
 * The app factory: {@link createHttpApp} with {@link nudgeRoutes} registered. Not listening yet;
 * call `app.listen()`, or `app.inject()` in tests.
 *
 * @example
 * ```ts
 * const app = await buildApp({ store, engine }); // an Engine, or a stand-in of EnginePort
 * const response = await app.inject({ method: 'POST', url: '/jobs', payload: { kind: 'echo' } });
 * ```
 * @throws RangeError when `bodyLimitBytes` is not a whole number of at least 1
 */
export async function buildApp(options: BuildAppOptions): Promise<NudgeHttpApp> {
  const app = createHttpApp(options);
  await app.register(nudgeRoutes, {
    store: options.store,
    engine: options.engine,
    metrics: options.metrics,
    ...(options.instanceLiveWithinMs !== undefined && { instanceLiveWithinMs: options.instanceLiveWithinMs }),
  });
  return app;
}

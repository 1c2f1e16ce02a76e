import rateLimit from '@fastify/rate-limit';
import { NudgeError } from '@nudge/core';
import type { RefusalLimit } from './install-auth.js';
import type { NudgeHttpApp } from './nudge-http-app.js';
import { routeAccess } from './route-scopes.js';

import { DEFAULT_RATE_LIMIT_PER_MINUTE } from './http-defaults.js';

export { DEFAULT_RATE_LIMIT_PER_MINUTE };

/**
 * Limits requests per minute with `@fastify/rate-limit` (a fixed one-minute window, in memory,
 * per instance): per API key once {@link installAuth} identified one, else per client address.
 * The check runs in `preParsing`, after the key check and before the body is read. Past the
 * limit a request answers `429 RATE_LIMITED` with `Retry-After` (seconds until the window
 * resets); every answer carries `x-ratelimit-limit`, `x-ratelimit-remaining` and
 * `x-ratelimit-reset`. `GET /healthz` and `GET /readyz` are never limited. `0` turns it off.
 *
 * Register before the routes: the limit is attached to each route as it is added.
 *
 * @returns the same limit for the requests the key check refuses (pass it to {@link installAuth}):
 *   a request without a valid key counts against its client address, one whose key lacks the
 *   route's scope against that key, so guessing keys is as limited as using one; `undefined`
 *   when `perMinute` is 0
 */
export function installRateLimit(app: NudgeHttpApp, perMinute: number): RefusalLimit | undefined {
  if (perMinute === 0) return undefined;
  void app.register(rateLimit, {
    global: true,
    max: perMinute,
    timeWindow: 60_000,
    hook: 'preParsing',
    keyGenerator: (request) => request.apiKeyName ?? `address:${request.ip}`,
    allowList: (request) => routeAccess(request.method, request.routeOptions.url) === 'public',
    errorResponseBuilder: (request, context) =>
      new NudgeError(
        'RATE_LIMITED',
        `${request.apiKeyName ? `the API key ${request.apiKeyName}` : `the address ${request.ip}`} sent more than ${context.max} requests this minute: retry after ${context.after}`,
      ),
  });
  // The plugin's own limiter, with the settings above and the same counters (it also marks the
  // request as counted, so a route's limit does not count it twice). The plugin decorates the app
  // once it is loaded, before the first request.
  let limit: ReturnType<NudgeHttpApp['rateLimit']> | undefined;
  return async (request, reply) => {
    limit ??= app.rateLimit();
    await limit.call(app, request, reply);
  };
}

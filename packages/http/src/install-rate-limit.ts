import rateLimit from '@fastify/rate-limit';
import { NudgeError } from '@nudge/core';
import type { NudgeHttpApp } from './nudge-http-app.js';
import { routeAccess } from './route-scopes.js';

/** Default most requests per minute per API key (or client address without keys): 6000, 100 a second. */
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 6000;

/**
 * Limits requests per minute with `@fastify/rate-limit` (a fixed one-minute window, in memory,
 * per instance): per API key once {@link installAuth} identified one, else per client address.
 * The check runs in `preParsing`, after the key check and before the body is read. Past the
 * limit a request answers `429 RATE_LIMITED` with `Retry-After` (seconds until the window
 * resets); every answer carries `x-ratelimit-limit`, `x-ratelimit-remaining` and
 * `x-ratelimit-reset`. `GET /healthz` and `GET /readyz` are never limited. `0` turns it off.
 *
 * Register before the routes: the limit is attached to each route as it is added.
 */
export function installRateLimit(app: NudgeHttpApp, perMinute: number): void {
  if (perMinute === 0) return;
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
}

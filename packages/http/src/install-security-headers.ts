import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet, { type HelmetOptions } from 'helmet';
import type { NudgeHttpApp } from './nudge-http-app.js';

/**
 * helmet's options for the API: its defaults, except that the API may be served over plain HTTP
 * (behind a TLS proxy, or on localhost), so no forced upgrade and no HSTS.
 */
export const API_SECURITY_HEADERS: Readonly<HelmetOptions> = {
  contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } },
  hsts: false,
};

/** What helmet's middleware does to a response: headers set and removed, in its order. */
type HeaderStep = readonly [name: string, value: string | undefined];

/**
 * The steps helmet's middleware for `options` takes on every response, found by running it once
 * against a recorder. Every directive here is static (no nonce, no per-request function), so
 * the steps are the same for every request.
 */
function helmetSteps(options: Readonly<HelmetOptions>): HeaderStep[] {
  const steps: HeaderStep[] = [];
  const recorder = {
    setHeader: (name: string, value: string) => steps.push([name, value]),
    removeHeader: (name: string) => steps.push([name, undefined]),
  };
  // helmet 8 throws on bad options itself (when built) instead of passing an error to `next`.
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, () => undefined);
  return steps;
}

/**
 * Security headers on every answer, as helmet's middleware sets them for `options` (CSP,
 * `X-Content-Type-Options: nosniff`, frame and referrer policies…), in an `onRequest` hook. The
 * headers are worked out once, not per request: `@fastify/helmet` builds helmet's middleware
 * (parsing the CSP directives) anew for each request.
 *
 * Call it after {@link installAuth}: a request its hook refuses answers without these headers,
 * as before.
 */
export function installSecurityHeaders(app: NudgeHttpApp, options: Readonly<HelmetOptions>): void {
  const steps = helmetSteps(options);
  app.addHook('onRequest', (_request, reply, done) => {
    const res = reply.raw;
    for (const [name, value] of steps) {
      if (value === undefined) res.removeHeader(name);
      else res.setHeader(name, value);
    }
    done();
  });
}

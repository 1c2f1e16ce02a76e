import type { ApiScope } from './api-keys.js';

/** What a route needs: a key with a scope, or nothing (`public`). */
export type RouteAccess = ApiScope | 'public';

/** Routes anyone may call, keys or not: the orchestrator's probes. */
export const PUBLIC_ROUTES: ReadonlySet<string> = new Set(['GET /healthz', 'GET /readyz']);

/** `POST` routes a producer calls: the `enqueue` scope. */
const ENQUEUE_ROUTES: ReadonlySet<string> = new Set([
  'POST /jobs',
  'POST /jobs/batch',
  'POST /jobs/:id/signals',
  'POST /nudge',
]);

/**
 * The access a route needs, from its method and its URL pattern (`/jobs/:id`, not the path sent):
 * `public` for `GET /healthz` and `GET /readyz`; `enqueue` for `POST /jobs`, `POST /jobs/batch`,
 * `POST /jobs/:id/signals` (a producer's signal) and `POST /nudge`; `read` for every `GET` and `HEAD` (`/jobs`, `/jobs/:id`, `/queues`, `/metrics`,
 * `/docs`…); `admin` for everything else (cancel and retry, of one job or in bulk, queue pause and resume, and any route
 * added later, until it is listed here). A request that matches no route (`url` undefined) needs
 * `read`, so that the list of routes in a `404` is not shown to anyone without a key.
 */
export function routeAccess(method: string, url: string | undefined): RouteAccess {
  if (url === undefined) return 'read';
  const route = `${method === 'HEAD' ? 'GET' : method} ${url}`;
  if (PUBLIC_ROUTES.has(route)) return 'public';
  // The dashboard's own files hold no data: the page asks for the key and sends it with every
  // API call it makes, which the routes above check.
  if ((method === 'GET' || method === 'HEAD') && (url === '/dashboard' || url.startsWith('/dashboard/')))
    return 'public';
  if (ENQUEUE_ROUTES.has(route)) return 'enqueue';
  if (method === 'GET' || method === 'HEAD') return 'read';
  return 'admin';
}

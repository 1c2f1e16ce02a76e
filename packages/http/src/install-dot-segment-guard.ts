import { NudgeError } from '@nudge/core';
import type { NudgeHttpApp } from './nudge-http-app.js';

/** A `.` or `..` path segment, also percent-encoded (`%2e`), as RFC 3986 calls them. */
const DOT_SEGMENT = /(?:^|\/)(?:\.|%2e){1,2}(?:\/|$)/i;

/** Longest request path quoted back in the message, in characters. */
const MAX_QUOTED_PATH = 200;

/**
 * Answers `404 ROUTE_NOT_FOUND` to a request whose path has a `.` or `..` segment
 * (`/dashboard/../jobs/1`, `/dashboard/%2e%2e/jobs/1`), in the first `onRequest` hook, before the
 * key check. Clients remove such segments before sending (RFC 3986, section 5.2.4), so a path
 * that keeps them names no resource here: answering it as another route would let a path under
 * a public prefix reach a route behind a key, and the dashboard's file server would refuse it as
 * a bad request. The answer lists no routes, since no key was checked.
 *
 * Call it before {@link installAuth}: hooks run in the order they were added.
 */
export function installDotSegmentGuard(app: NudgeHttpApp): void {
  app.addHook('onRequest', async (request) => {
    const path = (request.raw.url ?? request.url).split('?')[0] ?? '';
    if (!DOT_SEGMENT.test(path)) return;
    throw new NudgeError(
      'ROUTE_NOT_FOUND',
      `no route matches ${request.method} ${path.slice(0, MAX_QUOTED_PATH)}: a path with a "." or ".." segment names nothing; send the path without them`,
    );
  });
}

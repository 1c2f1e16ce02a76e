import type { FastifyRequest } from 'fastify';
import { NudgeError } from '@nudge/core';
import { allows, ApiKeyRing, type ApiKey } from './api-keys.js';
import type { NudgeHttpApp } from './nudge-http-app.js';
import { routeAccess } from './route-scopes.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The name (`key-N`) of the API key the request was authorised with, or `null`. */
    apiKeyName: string | null;
  }
}

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * Checks every request against the configured API keys in an `onRequest` hook, before its body
 * is read: each route needs the scope {@link routeAccess} gives (`GET /healthz` and `GET /readyz`
 * need none). No `Authorization: Bearer <key>` header, or an unknown key, answers
 * `401 UNAUTHORIZED` (with `WWW-Authenticate: Bearer`); a known key without the scope answers
 * `403 FORBIDDEN`. Keys are compared in constant time ({@link ApiKeyRing}). With no keys, every
 * request passes (the server then listens on a loopback address only, unless told otherwise).
 * Sets `request.apiKeyName` for the log and the rate limit.
 *
 * @param keysName - what the `401` for an unknown key calls the list of keys (`apiKeys`, or the
 *   setting the caller filled it from)
 */
export function installAuth(app: NudgeHttpApp, keys: readonly ApiKey[], keysName = 'apiKeys'): void {
  const ring = new ApiKeyRing(keys);
  app.decorateRequest('apiKeyName', null);
  if (!ring.enabled) return;
  app.addHook('onRequest', async (request: FastifyRequest, reply) => {
    const access = routeAccess(request.method, request.routeOptions.url);
    if (access === 'public') return;
    const header = request.headers.authorization;
    const token = header === undefined ? undefined : BEARER.exec(header)?.[1];
    if (token === undefined) {
      void reply.header('www-authenticate', 'Bearer');
      throw new NudgeError(
        'UNAUTHORIZED',
        header === undefined
          ? 'this route needs an API key: send Authorization: Bearer <key>'
          : 'the Authorization header must be "Bearer <key>"',
      );
    }
    const known = ring.find(token);
    if (!known) {
      void reply.header('www-authenticate', 'Bearer error="invalid_token"');
      throw new NudgeError(
        'UNAUTHORIZED',
        `the API key is not valid: send one of the keys configured in ${keysName}`,
      );
    }
    request.apiKeyName = known.name;
    if (!allows(known.scopes, access)) {
      throw new NudgeError(
        'FORBIDDEN',
        `${request.method} ${request.routeOptions.url ?? request.url} needs the "${access}" scope; this key has ${known.scopes.join('+')}`,
      );
    }
  });
}

import type { FastifyReply, FastifyRequest } from 'fastify';
import { NudgeError } from '@nudge/core';
import { allows, ApiKeyRing, type ApiKey, type KnownKey } from './api-keys.js';
import type { NudgeHttpApp } from './nudge-http-app.js';
import { routeAccess } from './route-scopes.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The name (`key-N`) of the API key the request was authorised with, or `null`. */
    apiKeyName: string | null;
    /** The API key the request was authorised with, or `null` (no keys configured, or a public route). */
    apiKey: KnownKey | null;
  }
}

/**
 * Counts a request {@link installAuth} is about to refuse against its client's budget, and
 * throws `429 RATE_LIMITED` (with `Retry-After`) past it: {@link installRateLimit} gives one.
 */
export type RefusalLimit = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/** Options of {@link installAuth}. */
export interface AuthOptions {
  /**
   * What the `401` for an unknown key calls the list of keys (`apiKeys`, or the setting the
   * caller filled it from). @defaultValue `'apiKeys'`
   */
  readonly keysName?: string;
  /** Runs before every `401` and `403`, so that refused requests are rate-limited too. */
  readonly limitRefusals?: RefusalLimit;
}

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * Checks every request against the configured API keys in an `onRequest` hook, before its body
 * is read: each route needs the scope {@link routeAccess} gives (`GET /healthz` and `GET /readyz`
 * need none). No `Authorization: Bearer <key>` header, or an unknown key, answers
 * `401 UNAUTHORIZED` (with `WWW-Authenticate: Bearer`); a known key without the scope answers
 * `403 FORBIDDEN`. Before either, `limitRefusals` counts the request (per client address for a
 * `401`, per key for a `403`), so a client that keeps guessing keys meets `429` instead. Keys are
 * compared in constant time ({@link ApiKeyRing}). With no keys, every request passes (the server
 * then listens on a loopback address only, unless told otherwise). Sets `request.apiKey` and
 * `request.apiKeyName` for the routes, the log and the rate limit.
 */
export function installAuth(app: NudgeHttpApp, keys: readonly ApiKey[], options: AuthOptions = {}): void {
  const ring = new ApiKeyRing(keys);
  const keysName = options.keysName ?? 'apiKeys';
  const limitRefusals = options.limitRefusals;
  app.decorateRequest('apiKeyName', null);
  app.decorateRequest('apiKey', null);
  if (!ring.enabled) return;
  app.addHook('onRequest', async (request: FastifyRequest, reply) => {
    const access = routeAccess(request.method, request.routeOptions.url);
    if (access === 'public') return;
    const header = request.headers.authorization;
    const token = header === undefined ? undefined : BEARER.exec(header)?.[1];
    if (token === undefined) {
      await limitRefusals?.(request, reply);
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
      await limitRefusals?.(request, reply);
      void reply.header('www-authenticate', 'Bearer error="invalid_token"');
      throw new NudgeError(
        'UNAUTHORIZED',
        `the API key is not valid: send one of the keys configured in ${keysName}`,
      );
    }
    request.apiKey = known;
    request.apiKeyName = known.name;
    if (!allows(known.scopes, access)) {
      await limitRefusals?.(request, reply);
      throw new NudgeError(
        'FORBIDDEN',
        `${request.method} ${request.routeOptions.url ?? request.url} needs the "${access}" scope; this key has ${known.scopes.join('+')}`,
      );
    }
  });
}

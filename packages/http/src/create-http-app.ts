import Fastify, { type FastifyServerOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ApiKey } from './api-keys.js';
import { registerDateTimeFormat } from './date-time-format.js';
import { answerFrameworkError, installErrorHandling } from './error-handling.js';
import { installAuth } from './install-auth.js';
import { installDotSegmentGuard } from './install-dot-segment-guard.js';
import { installDocs } from './install-docs.js';
import { DEFAULT_RATE_LIMIT_PER_MINUTE, installRateLimit } from './install-rate-limit.js';
import { API_SECURITY_HEADERS, installSecurityHeaders } from './install-security-headers.js';
import type { NudgeHttpApp } from './nudge-http-app.js';
import { typeboxValidatorCompiler } from './typebox-validator-compiler.js';

import { DEFAULT_BODY_LIMIT_BYTES } from './http-defaults.js';

export { DEFAULT_BODY_LIMIT_BYTES };

/** Settings of the HTTP server itself, independent of the routes. */
export interface HttpAppOptions {
  /**
   * Largest request body accepted, in bytes; a larger one is refused with `413 BODY_TOO_LARGE`.
   * @defaultValue {@link DEFAULT_BODY_LIMIT_BYTES} (1 MiB)
   */
  readonly bodyLimitBytes?: number;
  /**
   * Fastify's `logger` setting: `false` (silent), `true`, or pino options such as
   * `{ level: 'info' }`. The resulting pino logger is `app.log`.
   * @defaultValue false
   */
  readonly logger?: FastifyServerOptions['logger'];
  /**
   * The API keys accepted (see `parseApiKeys`); every route but `GET /healthz` and `GET /readyz`
   * then needs one with the route's scope. Empty: the API is open.
   * @defaultValue []
   */
  readonly apiKeys?: readonly ApiKey[];
  /**
   * Most requests per minute per API key (per client address without keys, and for requests
   * without a valid key); `0` is no limit.
   * @defaultValue {@link DEFAULT_RATE_LIMIT_PER_MINUTE} (6000)
   */
  readonly rateLimitPerMinute?: number;
  /**
   * The `info.version` of the OpenAPI document at `/docs/json`.
   * @defaultValue '0.1.0'
   */
  readonly version?: string;
  /**
   * What answers and the API's documentation call this app's options, for a caller that fills
   * them from settings of its own: the server passes `{ apiKeys: 'NUDGE_API_KEYS' }`, so a `401`
   * says "send one of the keys configured in NUDGE_API_KEYS".
   * @defaultValue each option by its own name (`apiKeys`)
   */
  readonly settingNames?: SettingNames;
}

/** Names of the options of {@link HttpAppOptions} that answers mention, by option. */
export interface SettingNames {
  /** @defaultValue `'apiKeys'` */
  readonly apiKeys?: string;
}

/**
 * Creates the Fastify instance nudge's routes run in, with no routes yet: TypeBox schemas
 * compiled by {@link typeboxValidatorCompiler}, JSON as the only body type (the default
 * `text/plain` parser is removed; Fastify's secure JSON parsing refuses `__proto__` and
 * `constructor.prototype` keys), the body limit, {@link installErrorHandling}, `404` for a path
 * with a `.` or `..` segment ({@link installDotSegmentGuard}), the API keys
 * ({@link installAuth}), the rate limit ({@link installRateLimit}), security headers on every
 * answer (helmet's, worked out once by {@link installSecurityHeaders}: CSP, `X-Content-Type-Options:
 * nosniff`, frame and referrer policies…)
 * and the OpenAPI document with its UI at `/docs` ({@link installDocs}).
 * Register {@link nudgeRoutes} on it, or use {@link buildApp} to do both.
 *
 * Use this two-step form when something must be built from `app.log` before the routes exist,
 * such as an engine that logs through the server's logger.
 *
 * @throws RangeError when `bodyLimitBytes` is not a whole number of at least 1, or
 *   `rateLimitPerMinute` not a whole number of at least 0
 */
export function createHttpApp(options: HttpAppOptions = {}): NudgeHttpApp {
  const bodyLimitBytes = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  if (!Number.isSafeInteger(bodyLimitBytes) || bodyLimitBytes < 1) {
    throw new RangeError(`bodyLimitBytes must be a whole number >= 1 (got ${String(bodyLimitBytes)})`);
  }
  const rateLimitPerMinute = options.rateLimitPerMinute ?? DEFAULT_RATE_LIMIT_PER_MINUTE;
  if (!Number.isSafeInteger(rateLimitPerMinute) || rateLimitPerMinute < 0) {
    throw new RangeError(
      `rateLimitPerMinute must be a whole number >= 0 (got ${String(rateLimitPerMinute)})`,
    );
  }
  registerDateTimeFormat();
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: bodyLimitBytes,
    frameworkErrors: answerFrameworkError,
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(typeboxValidatorCompiler);
  app.removeContentTypeParser('text/plain');
  installErrorHandling(app, bodyLimitBytes);
  installDotSegmentGuard(app);
  const apiKeysName = options.settingNames?.apiKeys ?? 'apiKeys';
  const limitRefusals = installRateLimit(app, rateLimitPerMinute);
  installAuth(app, options.apiKeys ?? [], { keysName: apiKeysName, limitRefusals });
  installSecurityHeaders(app, API_SECURITY_HEADERS);
  installDocs(app, options.version ?? '0.1.0', apiKeysName);
  return app;
}

import Fastify, { type FastifyServerOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { registerDateTimeFormat } from './date-time-format.js';
import { installErrorHandling } from './error-handling.js';
import type { NudgeHttpApp } from './nudge-http-app.js';
import { typeboxValidatorCompiler } from './typebox-validator-compiler.js';

/** Default largest request body: 1 MiB, in bytes (also Fastify's default). */
export const DEFAULT_BODY_LIMIT_BYTES = 1_048_576;

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
}

/**
 * Creates the Fastify instance nudge's routes run in, with no routes yet: TypeBox schemas
 * compiled by {@link typeboxValidatorCompiler}, JSON as the only body type (the default
 * `text/plain` parser is removed), the body limit, and {@link installErrorHandling}.
 * Register {@link nudgeRoutes} on it, or use {@link buildApp} to do both.
 *
 * Use this two-step form when something must be built from `app.log` before the routes exist,
 * such as an engine that logs through the server's logger.
 *
 * @throws RangeError when `bodyLimitBytes` is not a whole number of at least 1
 */
export function createHttpApp(options: HttpAppOptions = {}): NudgeHttpApp {
  const bodyLimitBytes = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  if (!Number.isSafeInteger(bodyLimitBytes) || bodyLimitBytes < 1) {
    throw new RangeError(`bodyLimitBytes must be a whole number >= 1 (got ${String(bodyLimitBytes)})`);
  }
  registerDateTimeFormat();
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: bodyLimitBytes,
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(typeboxValidatorCompiler);
  app.removeContentTypeParser('text/plain');
  installErrorHandling(app, bodyLimitBytes);
  return app;
}

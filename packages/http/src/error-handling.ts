import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { errorBody } from './error-body.js';
import { toHttpError } from './http-error.js';
import type { NudgeHttpApp } from './nudge-http-app.js';

/** Longest request path quoted back in a `ROUTE_NOT_FOUND` message, in characters. */
const MAX_QUOTED_PATH = 200;

/**
 * Makes every failure of `app` answer with an error body (`{statusCode, code, error, message}`):
 * an error handler built on {@link toHttpError} that logs each error at its level (the cause of
 * an `INTERNAL_ERROR` goes to the log, never to the client), and a not-found handler answering
 * `404 ROUTE_NOT_FOUND` with the list of routes the app has.
 *
 * Call it before registering routes: the route list is collected as routes are added.
 */
export function installErrorHandling(app: NudgeHttpApp, bodyLimitBytes: number): void {
  const routes: { method: string; url: string }[] = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) if (method !== 'HEAD') routes.push({ method, url: route.url });
  });

  app.setErrorHandler(async (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const { body, logLevel } = toHttpError(error, bodyLimitBytes);
    if (logLevel === 'info') request.log.info({ code: body.code }, body.message);
    else request.log[logLevel]({ err: error, code: body.code }, body.message);
    return reply.code(body.statusCode).send(body);
  });

  app.setNotFoundHandler(async (request: FastifyRequest, reply: FastifyReply) => {
    const path = (request.url.split('?')[0] ?? '').slice(0, MAX_QUOTED_PATH);
    const known = [...routes]
      .sort((a, b) => a.url.localeCompare(b.url) || a.method.localeCompare(b.method))
      .map((route) => `${route.method} ${route.url}`)
      .join(', ');
    const body = errorBody(
      'ROUTE_NOT_FOUND',
      `no route matches ${request.method} ${path} (routes: ${known})`,
    );
    return reply.code(body.statusCode).send(body);
  });
}

/**
 * Fastify's `frameworkErrors` option: a URL it cannot decode (such as `/jobs/%ZZ`) answers
 * `400 INVALID_REQUEST` with nudge's error body, instead of Fastify's own `FST_ERR_BAD_URL` body.
 * Fastify calls it before routing, so no hook runs; the answer carries no data.
 */
export function answerFrameworkError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  const path = (request.raw.url?.split('?')[0] ?? '').slice(0, MAX_QUOTED_PATH);
  const body = errorBody(
    'INVALID_REQUEST',
    `${path} is not a valid URL: ${error.message}; percent-encode reserved characters (a literal % is %25)`,
  );
  request.log.info({ code: body.code }, body.message);
  void reply.code(body.statusCode).header('x-content-type-options', 'nosniff').send(body);
}

import { NudgeError, type ErrorCode } from '@nudge/core';
import { BatchRejectedError } from './batch-rejected-error.js';
import { errorBody, type ErrorBody } from './error-body.js';
import { JobStateConflictError } from './job-state-conflict-error.js';

/** An error turned into its response, and how loudly to log it. */
export interface HttpError {
  readonly body: ErrorBody;
  /** `error` for failures of the service itself, `warn` for it being unavailable, else `info`. */
  readonly logLevel: 'info' | 'warn' | 'error';
}

/** Fastify's own errors: the nudge code each becomes and a message that says what to fix. */
const FASTIFY_ERRORS: Readonly<Record<string, { code: ErrorCode; message: (limitBytes: number) => string }>> =
  {
    FST_ERR_CTP_INVALID_JSON_BODY: {
      code: 'INVALID_JSON',
      message: () =>
        'the body is not valid JSON, or it holds a "__proto__" or "constructor.prototype" key (refused for safety): send a JSON object such as {"kind":"sendEmail"}',
    },
    FST_ERR_CTP_EMPTY_JSON_BODY: {
      code: 'INVALID_JSON',
      message: () => 'the body is empty but Content-Type is application/json: send a JSON object',
    },
    FST_ERR_CTP_BODY_TOO_LARGE: {
      code: 'BODY_TOO_LARGE',
      message: (limit) => `the body is larger than the limit of ${limit} bytes: send a smaller payload`,
    },
    FST_ERR_CTP_INVALID_MEDIA_TYPE: {
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: () => 'the body must be JSON: send it with Content-Type: application/json',
    },
  };

function propertyOf(error: unknown, key: string): unknown {
  return typeof error === 'object' && error !== null ? (error as Record<string, unknown>)[key] : undefined;
}

/**
 * Maps anything a route throws, or Fastify raises while reading a request, to the error
 * response: a `NudgeError` keeps its code and message; Fastify's body and media-type errors
 * become `INVALID_JSON`, `BODY_TOO_LARGE` or `UNSUPPORTED_MEDIA_TYPE`; its other client errors
 * (4xx: a malformed URL, a Content-Length that does not match) become `INVALID_REQUEST` with
 * Fastify's message; anything else is an `INTERNAL_ERROR` whose message reveals nothing of the
 * cause (the caller logs the error itself).
 *
 * @param bodyLimitBytes - the limit to quote in a `BODY_TOO_LARGE` message
 */
export function toHttpError(error: unknown, bodyLimitBytes: number): HttpError {
  if (error instanceof NudgeError) {
    const logLevel = error.statusCode < 500 ? 'info' : error.code === 'NOT_READY' ? 'warn' : 'error';
    const extra = {
      ...(error instanceof BatchRejectedError ? { errors: error.problems } : {}),
      ...(error instanceof JobStateConflictError ? { status: error.status } : {}),
    };
    return { body: errorBody(error.code, error.message, extra), logLevel };
  }
  const fastifyCode = propertyOf(error, 'code');
  const known = typeof fastifyCode === 'string' ? FASTIFY_ERRORS[fastifyCode] : undefined;
  if (known) return { body: errorBody(known.code, known.message(bodyLimitBytes)), logLevel: 'info' };
  const status = propertyOf(error, 'statusCode');
  if (typeof status === 'number' && status >= 400 && status < 500 && error instanceof Error) {
    return { body: errorBody('INVALID_REQUEST', error.message), logLevel: 'info' };
  }
  return {
    body: errorBody('INTERNAL_ERROR', 'the server failed to handle the request; its log has the details'),
    logLevel: 'error',
  };
}

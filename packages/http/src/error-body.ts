import { STATUS_CODES } from 'node:http';
import { Type, type Static } from '@sinclair/typebox';
import { ERROR_CODES, type ErrorCode } from '@nudge/core';

/**
 * Body of every error response: the HTTP status, a stable `code` from `ERROR_CODES`
 * (documented in `docs/errors.md`), the status's reason phrase, and a message that says what to
 * fix.
 */
export const errorBodySchema = Type.Object({
  statusCode: Type.Integer(),
  code: Type.Unsafe<ErrorCode>(Type.String({ enum: Object.keys(ERROR_CODES) })),
  error: Type.String({ description: 'HTTP reason phrase, such as "Bad Request".' }),
  message: Type.String(),
});

/** The static type of {@link errorBodySchema}. */
export type ErrorBody = Static<typeof errorBodySchema>;

/** The error body of `code` with its status from `ERROR_CODES`. */
export function errorBody(code: ErrorCode, message: string): ErrorBody {
  const statusCode = ERROR_CODES[code].status;
  return { statusCode, code, error: STATUS_CODES[statusCode] ?? 'Error', message };
}

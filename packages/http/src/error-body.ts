import { STATUS_CODES } from 'node:http';
import { Type, type Static } from '@sinclair/typebox';
import { ERROR_CODES, JOB_STATUSES, type ErrorCode, type JobStatus } from '@nudge/core';

const codeSchema = Type.Unsafe<ErrorCode>(Type.String({ enum: Object.keys(ERROR_CODES) }));

/** One refused job of a batch: its index in `jobs`, and why, as a single job would be refused. */
export const batchProblemSchema = Type.Object({
  index: Type.Integer({ minimum: 0 }),
  code: codeSchema,
  message: Type.String(),
});

/** The static type of {@link batchProblemSchema}. */
export type BatchProblem = Static<typeof batchProblemSchema>;

/**
 * Body of every error response: the HTTP status, a stable `code` from `ERROR_CODES`
 * (documented in `docs/reference/errors.md`), the status's reason phrase, and a message that says what to
 * fix; a refused batch adds `errors`, a job state conflict `status`.
 */
export const errorBodySchema = Type.Object({
  statusCode: Type.Integer(),
  code: codeSchema,
  error: Type.String({ description: 'HTTP reason phrase, such as "Bad Request".' }),
  message: Type.String(),
  errors: Type.Optional(
    Type.Array(batchProblemSchema, { description: '`INVALID_BATCH` only: every refused job of the batch.' }),
  ),
  status: Type.Optional(
    Type.Union(
      JOB_STATUSES.map((status) => Type.Literal(status)),
      { description: "`JOB_STATE_CONFLICT` only: the job's status now." },
    ),
  ),
});

/** The static type of {@link errorBodySchema}. */
export type ErrorBody = Static<typeof errorBodySchema>;

/**
 * The error body of `code` with its status from `ERROR_CODES`, and a batch's problems or a job's
 * current status if any.
 */
export function errorBody(
  code: ErrorCode,
  message: string,
  extra: { errors?: readonly BatchProblem[]; status?: JobStatus } = {},
): ErrorBody {
  const statusCode = ERROR_CODES[code].status;
  const body: ErrorBody = { statusCode, code, error: STATUS_CODES[statusCode] ?? 'Error', message };
  if (extra.errors) body.errors = [...extra.errors];
  if (extra.status) body.status = extra.status;
  return body;
}

import type { FastifySchemaCompiler } from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { NudgeError } from '@nudge/core';
import { describeValueError } from './describe-value-error.js';

/** Most distinct problems named in one message. */
const MAX_PROBLEMS = 5;

/**
 * Fastify validator compiler for TypeBox route schemas: compiles each schema once with TypeBox's
 * `TypeCompiler`, so validation and the handler's static types come from the same schema.
 *
 * Values are checked as they arrive: nothing is coerced (a `"5"` is not the integer 5), defaults
 * are not filled in and unknown properties are not removed. Route params are strings, so declare
 * them as strings with a `pattern`.
 *
 * A failure becomes a `NudgeError` `INVALID_REQUEST` whose message names each offending field
 * (its first problem only) and what to fix: `body/maxAttempts must be >= 1 (got 0)`.
 */
export const typeboxValidatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  const check = TypeCompiler.Compile(schema);
  const part = httpPart ?? 'value';
  return (value: unknown) => {
    if (check.Check(value)) return { value };
    const problems = new Map<string, string>();
    for (const error of check.Errors(value)) {
      if (!problems.has(error.path))
        problems.set(error.path, `${part}${error.path} ${describeValueError(error)}`);
      if (problems.size === MAX_PROBLEMS) break;
    }
    return { error: new NudgeError('INVALID_REQUEST', [...problems.values()].join('; ')) };
  };
};

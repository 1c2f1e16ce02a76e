import type { FastifySchemaCompiler } from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { NudgeError } from '@nudge/core';
import { describeValueError } from './describe-value-error.js';

/** Most distinct problems named in one message. */
const MAX_PROBLEMS = 5;

/** Checks that replace TypeBox's for a schema: the schema then only documents and types it. */
const customChecks = new WeakMap<TSchema, (value: unknown) => NudgeError | undefined>();

/**
 * Makes {@link typeboxValidatorCompiler} check values of `schema` with `check` instead of
 * TypeBox, for a contract defined elsewhere (the job contract of `@nudge/core`): its error is the
 * answer, and a value it accepts must also match `schema`, which types the handler's input.
 */
export function checkBodyWith(schema: TSchema, check: (value: unknown) => NudgeError | undefined): void {
  customChecks.set(schema, check);
}

/** Where a value sits: a JSON Pointer into the body (`/jobs/3/priority`), else `querystring/limit`. */
function location(part: string, path: string): string {
  if (part !== 'body') return `${part}${path}`;
  return path || 'the body';
}

/**
 * Fastify validator compiler for TypeBox route schemas: compiles each schema once with TypeBox's
 * `TypeCompiler`, so validation and the handler's static types come from the same schema.
 *
 * Values are checked as they arrive: nothing is coerced (a `"5"` is not the integer 5), defaults
 * are not filled in and unknown properties are not removed. Route params are strings, so declare
 * them as strings with a `pattern`.
 *
 * A failure becomes a `NudgeError` `INVALID_REQUEST` whose message names each offending field
 * (its first problem only) and what to fix: `/maxAttempts must be an integer from 1 to 1000 (got
 * 0)` for a body (the field's JSON Pointer), `querystring/limit must be …` for other parts.
 */
export const typeboxValidatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  const check = TypeCompiler.Compile(schema);
  const custom = customChecks.get(schema);
  const part = httpPart ?? 'value';
  return (value: unknown) => {
    const refused = custom?.(value);
    if (refused) return { error: refused };
    if (check.Check(value)) return { value };
    return { error: refusalOf(check, value, part) };
  };
};

/**
 * The `INVALID_REQUEST` error for a `value` of request part `part` (`body`, `querystring`, …)
 * that `check` refuses: each offending field (its first problem only, at most five fields) and
 * what to fix, as {@link typeboxValidatorCompiler} words it.
 */
export function refusalOf(check: TypeCheck<TSchema>, value: unknown, part: string): NudgeError {
  const problems = new Map<string, string>();
  for (const error of check.Errors(value)) {
    if (!problems.has(error.path))
      problems.set(error.path, `${location(part, error.path)} ${describeValueError(error)}`);
    if (problems.size === MAX_PROBLEMS) break;
  }
  return new NudgeError('INVALID_REQUEST', [...problems.values()].join('; '));
}

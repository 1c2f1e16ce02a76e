import { Ajv, type ErrorObject } from 'ajv';
import ajvFormats from 'ajv-formats';
import type { JsonSchema } from './handlers/handler.js';
import { describeValue } from '@nudge/core';

/**
 * Checks a payload against a kind's schema: `undefined` when it matches, otherwise what is wrong
 * with the first value at fault, led by its JSON Pointer in the job:
 * `/payload/to must be string (got 5)`, `/payload/to is required`.
 */
export type PayloadCheck = (payload: unknown) => string | undefined;

/**
 * One validator for the whole thread. ajv (draft-07, the dialect TypeBox emits) validates the
 * schema as plain JSON, which is what survives the trip between threads: TypeBox's own checker
 * needs its symbol keys. `strict: false` ignores keywords ajv does not know (TypeBox and users
 * add annotations); ajv-formats supplies `email`, `uri`, `date-time` and the other formats.
 */
let shared: Ajv | undefined;

function validator(): Ajv {
  if (!shared) {
    shared = new Ajv({ strict: false, allErrors: false, verbose: true });
    // A CommonJS module: its plugin function is the `default` of what ESM imports.
    ajvFormats.default(shared);
  }
  return shared;
}

/** A pointer segment: `~` and `/` escaped as RFC 6901 says. */
const segment = (name: string): string => name.replace(/~/g, '~0').replace(/\//g, '~1');

function describe(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required' && typeof params.missingProperty === 'string') {
    return `/payload${error.instancePath}/${segment(params.missingProperty)} is required`;
  }
  if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    return `/payload${error.instancePath}/${segment(params.additionalProperty)} is not allowed`;
  }
  return `/payload${error.instancePath} ${error.message ?? 'is invalid'} (got ${describeValue(error.data)})`;
}

/**
 * Compiles `schema` once into a {@link PayloadCheck}.
 * @throws Error when `schema` is not a JSON Schema ajv can compile (the message says why)
 */
export function compilePayloadCheck(schema: JsonSchema): PayloadCheck {
  const validate = validator().compile(schema);
  return (payload) => {
    if (validate(payload)) return undefined;
    const first = validate.errors?.[0];
    return first ? describe(first) : '/payload does not match the schema';
  };
}

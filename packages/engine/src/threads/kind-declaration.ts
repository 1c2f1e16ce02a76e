import {
  DEFAULT_BACKOFF,
  EXECUTION_CLASSES,
  isQueueName,
  MAX_ATTEMPTS_RANGE,
  MAX_TIMER_MS,
  validateBackoff,
  type ExecutionClass,
} from '@nudge/core';
import { compilePayloadCheck, type PayloadCheck } from '../payload-check.js';
import type { JsonSchema, KindInfo } from '../handlers/handler.js';

/** Fields a kind's definition object may have; any other is refused (a misspelt option). */
const FIELDS = [
  'handler',
  'execution',
  'maxAttempts',
  'backoff',
  'timeoutMs',
  'maxYoungGenerationSizeMb',
  'queue',
  'schema',
];
const BACKOFF_FIELDS = ['baseMs', 'maxMs', 'jitterRatio'];

/** Largest `maxYoungGenerationSizeMb` a kind may declare, in MB. */
export const MAX_DECLARED_YOUNG_GENERATION_MB = 1024;

/** A kind's declaration, checked, with the compiled check of its payload schema. */
export interface CheckedDeclaration extends KindInfo {
  readonly check: PayloadCheck | undefined;
}

function wholeNumber(kind: string, field: string, value: unknown, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
    throw new Error(`kind "${kind}": ${field} must be a whole number from 1 to ${max} (got ${show(value)})`);
  }
  return value;
}

function show(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Checks what a definition object declares besides its handler, naming the kind and the field at
 * fault, and compiles its payload schema. The schema is kept as plain JSON: the form that
 * crosses to the engine's thread (TypeBox's symbol keys and any function dropped).
 *
 * @throws Error naming the kind and the field: an unknown field, an `execution` not in
 *   `EXECUTION_CLASSES`, `maxAttempts` not 1 to `MAX_ATTEMPTS_RANGE.maximum` (core's job
 *   contract), a `backoff` field out of range or unknown, `timeoutMs` not 1 to `MAX_TIMER_MS`,
 *   `maxYoungGenerationSizeMb` not 1 to 1024 or on an `async` kind, `queue` not a queue name
 *   (`isQueueName`), a `schema` that is not an object or that ajv cannot compile
 */
export function checkDeclaration(kind: string, value: Readonly<Record<string, unknown>>): CheckedDeclaration {
  const unknown = Object.keys(value).filter((key) => !FIELDS.includes(key));
  if (unknown.length > 0) {
    throw new Error(`kind "${kind}": unknown field ${unknown.join(', ')} (allowed: ${FIELDS.join(', ')})`);
  }
  const { execution, maxAttempts, backoff, timeoutMs, maxYoungGenerationSizeMb, queue, schema } = value;
  if (execution !== undefined && !(EXECUTION_CLASSES as readonly unknown[]).includes(execution)) {
    throw new Error(
      `kind "${kind}": execution must be one of ${EXECUTION_CLASSES.join(', ')} (got ${show(execution)})`,
    );
  }
  const info: { -readonly [K in keyof CheckedDeclaration]: CheckedDeclaration[K] } = {
    kind,
    execution: (execution as ExecutionClass | undefined) ?? 'cpu',
    check: undefined,
  };
  if (maxAttempts !== undefined) {
    info.maxAttempts = wholeNumber(kind, 'maxAttempts', maxAttempts, MAX_ATTEMPTS_RANGE.maximum);
  }
  if (timeoutMs !== undefined) {
    info.timeoutMs = wholeNumber(kind, 'timeoutMs', timeoutMs, MAX_TIMER_MS);
  }
  if (maxYoungGenerationSizeMb !== undefined) {
    if (info.execution !== 'cpu') {
      throw new Error(
        `kind "${kind}": maxYoungGenerationSizeMb applies to cpu kinds only (this kind is ${info.execution})`,
      );
    }
    info.maxYoungGenerationSizeMb = wholeNumber(
      kind,
      'maxYoungGenerationSizeMb',
      maxYoungGenerationSizeMb,
      MAX_DECLARED_YOUNG_GENERATION_MB,
    );
  }
  if (queue !== undefined) {
    if (typeof queue !== 'string' || !isQueueName(queue)) {
      throw new Error(
        `kind "${kind}": queue must be a queue name: 1 to 100 letters, digits, '_', '.' or '-', other than '.' and '..' (got ${show(queue)})`,
      );
    }
    info.queue = queue;
  }
  if (backoff !== undefined) {
    if (backoff === null || typeof backoff !== 'object' || Array.isArray(backoff)) {
      throw new Error(`kind "${kind}": backoff must be an object of ${BACKOFF_FIELDS.join(', ')}`);
    }
    const extra = Object.keys(backoff).filter((key) => !BACKOFF_FIELDS.includes(key));
    if (extra.length > 0) {
      throw new Error(
        `kind "${kind}": backoff has unknown field ${extra.join(', ')} (allowed: ${BACKOFF_FIELDS.join(', ')})`,
      );
    }
    // Only the declared fields can be at fault: the defaults are valid.
    try {
      validateBackoff({ ...DEFAULT_BACKOFF, ...backoff }, 'backoff');
    } catch (error) {
      throw new Error(`kind "${kind}": ${(error as Error).message}`);
    }
    info.backoff = { ...backoff };
  }
  if (schema !== undefined) {
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
      throw new Error(`kind "${kind}": schema must be a JSON Schema object (got ${show(schema)})`);
    }
    const plain = JSON.parse(JSON.stringify(schema)) as JsonSchema;
    try {
      info.check = compilePayloadCheck(plain);
    } catch (error) {
      throw new Error(`kind "${kind}": schema is not a valid JSON Schema: ${(error as Error).message}`);
    }
    info.schema = plain;
  }
  return info;
}

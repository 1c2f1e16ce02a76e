import { hasCharacterCountIn } from './character-count.js';
import { describeValue } from './job-options.js';
import { NudgeError } from './nudge-error.js';
import { findUnstorableJson, findUnstorableJsonText, unstorableText } from './storable-json.js';

/** Longest signal name (what `ctx.waitForSignal(name)` waits for), in characters. */
export const MAX_SIGNAL_NAME_LENGTH = 200;

/** Longest `signalId` (the sender's id that makes a send idempotent), in characters. */
export const MAX_SIGNAL_ID_LENGTH = 200;

/** The fields of a signal to send that are checked before anything is written. */
export interface SignalFields {
  /** The id of the job to signal: a positive integer. */
  readonly jobId: unknown;
  /** 1 to {@link MAX_SIGNAL_NAME_LENGTH} characters. */
  readonly name: unknown;
  /** Omitted, or 1 to {@link MAX_SIGNAL_ID_LENGTH} characters. */
  readonly signalId?: unknown;
}

function textProblem(field: 'name' | 'signalId', value: unknown, max: number): NudgeError | undefined {
  if (typeof value !== 'string' || !hasCharacterCountIn(value, 1, max)) {
    return new NudgeError(
      'INVALID_REQUEST',
      `/${field} must be a string of 1 to ${max} characters (got ${describeValue(value)})`,
    );
  }
  const problem = unstorableText(value);
  return problem ? new NudgeError('PAYLOAD_UNSTORABLE', `/${field} ${problem}`) : undefined;
}

/**
 * What is wrong with a signal's `jobId`, `name` and `signalId`: `jobId` a positive safe integer;
 * `name` and `signalId` each a string of 1 to 200 characters (Unicode code points, as
 * `hasCharacterCountIn` counts), without U+0000 or a lone surrogate; `signalId` may be omitted
 * (`undefined`).
 * @returns a `NudgeError` to throw (`INVALID_REQUEST` naming the field, or `PAYLOAD_UNSTORABLE`);
 *   `undefined` when all are valid
 */
export function signalFieldsProblem(fields: SignalFields): NudgeError | undefined {
  const { jobId } = fields;
  if (typeof jobId !== 'number' || !Number.isSafeInteger(jobId) || jobId < 1) {
    return new NudgeError(
      'INVALID_REQUEST',
      `/jobId must be a job id, a positive integer (got ${describeValue(jobId)})`,
    );
  }
  return (
    textProblem('name', fields.name, MAX_SIGNAL_NAME_LENGTH) ??
    (fields.signalId === undefined
      ? undefined
      : textProblem('signalId', fields.signalId, MAX_SIGNAL_ID_LENGTH))
  );
}

function payloadError(problem: {
  problem: 'too-deep' | 'unstorable';
  path: string;
  reason: string;
}): NudgeError {
  return new NudgeError(
    problem.problem === 'too-deep' ? 'PAYLOAD_TOO_DEEP' : 'PAYLOAD_UNSTORABLE',
    `/payload${problem.path}: ${problem.reason}`,
  );
}

/**
 * Checks a signal to send before anything is written: `name` and `signalId` as
 * {@link signalFieldsProblem} says, and a `payload` (any JSON value; `undefined` is sent as
 * `null`) both dialects store alike, as a job's payload is checked (`findUnstorableJson`).
 * @throws NudgeError `INVALID_REQUEST` naming the field; `PAYLOAD_TOO_DEEP` or `PAYLOAD_UNSTORABLE`
 *   naming the JSON Pointer in the payload
 */
export function validateSignal(fields: SignalFields & { readonly payload?: unknown }): void {
  const problem = signalFieldsProblem(fields);
  if (problem) throw problem;
  const payload = fields.payload === undefined ? undefined : findUnstorableJson(fields.payload);
  if (payload) throw payloadError(payload);
}

/**
 * {@link validateSignal} for a payload given as JSON text (as `JSON.stringify` writes it): the
 * text must parse as JSON, and is scanned for nesting and unstorable characters as a handler's
 * result is (`findUnstorableJsonText`). `null` or `undefined` text stands for JSON `null`.
 * @throws NudgeError as {@link validateSignal}; `INVALID_REQUEST` when the text is not JSON
 */
export function validateSignalJson(fields: SignalFields & { readonly payloadJson?: string | null }): void {
  const problem = signalFieldsProblem(fields);
  if (problem) throw problem;
  const text = fields.payloadJson;
  if (text === undefined || text === null) return;
  const unstorable = findUnstorableJsonText(text);
  if (unstorable) throw payloadError(unstorable);
  try {
    JSON.parse(text);
  } catch {
    throw new NudgeError(
      'INVALID_REQUEST',
      `/payload must be JSON text (got ${describeValue(text)}): pass JSON.stringify(payload)`,
    );
  }
}

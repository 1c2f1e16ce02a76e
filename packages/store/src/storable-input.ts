import { findUnstorableJson, NudgeError, toStorableError, unstorableText } from '@nudge/core';
import { assertEnqueueDelay } from './enqueue-delay.js';
import type { EnqueueInput, FailInput } from './store.js';
import type { ListJobsQuery } from './store-types.js';

/**
 * Refuses a job that the two dialects would not store alike, before anything is written: a kind
 * or payload string with U+0000 or a lone surrogate, a payload nested deeper than
 * `MAX_JSON_DEPTH`, a number that is not finite; also a `delayMs` out of range or given with
 * `runAt` (see {@link assertEnqueueDelay}). Every enqueue of both stores calls it, so a refused
 * batch writes nothing.
 *
 * @param where - how the message names the job, e.g. `jobs/3/` in a batch; `''` for a single job
 * @throws NudgeError `PAYLOAD_TOO_DEEP` or `PAYLOAD_UNSTORABLE`, naming the JSON Pointer at fault
 * @throws NudgeError `INVALID_REQUEST` for a bad `delayMs`
 */
export function assertStorableInput(input: EnqueueInput, where = ''): void {
  assertEnqueueDelay(input, where);
  const kindProblem = unstorableText(input.kind);
  if (kindProblem) throw new NudgeError('PAYLOAD_UNSTORABLE', `${where}kind ${kindProblem}`);
  const keyProblem = input.idempotencyKey === undefined ? undefined : unstorableText(input.idempotencyKey);
  if (keyProblem) throw new NudgeError('PAYLOAD_UNSTORABLE', `${where}idempotencyKey ${keyProblem}`);
  if (input.payload === undefined) return;
  const problem = findUnstorableJson(input.payload);
  if (!problem) return;
  throw new NudgeError(
    problem.problem === 'too-deep' ? 'PAYLOAD_TOO_DEEP' : 'PAYLOAD_UNSTORABLE',
    `${where}payload${problem.path}: ${problem.reason}`,
  );
}

/**
 * Refuses a list filter no stored job can match and PostgreSQL cannot even compare: a `kind` or
 * `queue` with U+0000 or a lone surrogate. Both stores call it, so both answer alike.
 *
 * @throws NudgeError `INVALID_REQUEST`, naming the filter and what to fix
 */
export function assertStorableFilter(query: ListJobsQuery): void {
  for (const name of ['kind', 'queue'] as const) {
    const value = query[name];
    const problem = value === undefined ? undefined : unstorableText(value);
    if (problem)
      throw new NudgeError('INVALID_REQUEST', `querystring/${name} ${problem}: no job has such a ${name}`);
  }
}

/** {@link assertStorableInput} for each job of a batch, naming the first at fault by its index. */
export function assertStorableInputs(inputs: readonly EnqueueInput[]): void {
  inputs.forEach((input, index) => assertStorableInput(input, inputs.length > 1 ? `jobs/${index}/` : ''));
}

/**
 * Failures with their messages as both dialects can store them (see `toStorableError`): a
 * handler's error text is arbitrary, and one unstorable message must not fail a whole batch.
 */
export function storableFailures(items: readonly FailInput[]): readonly FailInput[] {
  return items.map((item) => {
    const error = toStorableError(item.error);
    return error === item.error ? item : { ...item, error };
  });
}

import {
  NudgeError,
  toStorableError,
  unstorableText,
  validateJobInput,
  validateJobInputs,
} from '@nudge/core';
import type { EnqueueInput, FailInput } from './store.js';
import type { ListJobsQuery } from './read-types.js';

/**
 * Refuses a job that breaks the job contract of `@nudge/core` (`validateJobInput`) before
 * anything is written: the fields' shapes and limits, `delayMs` with `runAt`, and text or a
 * payload the two dialects would not store alike. Every enqueue of both stores calls it, so a
 * refused batch writes nothing.
 *
 * @param pointer - the job's JSON Pointer in a batch, e.g. `/jobs/3`; `''` for a single job
 * @throws NudgeError `INVALID_REQUEST` naming the field; `PAYLOAD_TOO_DEEP` or
 *   `PAYLOAD_UNSTORABLE` naming the JSON Pointer at fault
 */
export function assertStorableInput(input: EnqueueInput, pointer = ''): void {
  validateJobInput(input, pointer);
}

/**
 * Refuses a list filter no stored job can match and PostgreSQL cannot even compare: a `kind`,
 * `queue` or `concurrencyKey` with U+0000 or a lone surrogate. Both stores call it, so both answer alike.
 *
 * @throws NudgeError `INVALID_REQUEST`, naming the filter and what to fix
 */
export function assertStorableFilter(query: ListJobsQuery): void {
  for (const name of ['kind', 'queue', 'concurrencyKey'] as const) {
    const value = query[name];
    const problem = value === undefined ? undefined : unstorableText(value);
    if (problem)
      throw new NudgeError('INVALID_REQUEST', `querystring/${name} ${problem}: no job has such a ${name}`);
  }
}

/** {@link assertStorableInput} for each job of a batch, naming the first at fault as `/jobs/<index>`. */
export function assertStorableInputs(inputs: readonly EnqueueInput[]): void {
  validateJobInputs(inputs);
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

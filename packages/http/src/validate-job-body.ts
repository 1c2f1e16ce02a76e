import { TypeCompiler } from '@sinclair/typebox/compiler';
import { NudgeError } from '@nudge/core';
import { assertEnqueueDelay, assertStorableInput, type EnqueueInput } from '@nudge/store';
import { createJobBodySchema, toEnqueueInput } from './create-job-body.js';
import { describeValueError } from './describe-value-error.js';

const checkJob = TypeCompiler.Compile(createJobBodySchema);

/**
 * Checks one job written as the body of `POST /jobs` (a parsed JSON value) by the same rules
 * the route applies, and returns the store's input for it. Kinds and the kinds' payload schemas
 * are not checked: that needs the handler module. Used by `nudge enqueue`.
 *
 * @throws NudgeError `INVALID_REQUEST` naming the first field at fault and what to fix
 *   (`priority must be <= 1000 (got 5000)`, `delayMs` with `runAt`); `PAYLOAD_UNSTORABLE` or `PAYLOAD_TOO_DEEP` for a
 *   payload no dialect stores alike
 */
export function validateJobBody(job: unknown): EnqueueInput {
  if (!checkJob.Check(job)) {
    const first = checkJob.Errors(job).First();
    const field = first?.path.slice(1) || 'the job';
    throw new NudgeError('INVALID_REQUEST', `${field} ${first ? describeValueError(first) : 'is invalid'}`);
  }
  const input = toEnqueueInput(job);
  assertEnqueueDelay(input);
  assertStorableInput(input);
  return input;
}

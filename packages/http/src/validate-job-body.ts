import { jobInputProblem } from '@nudge/core';
import type { EnqueueInput } from '@nudge/store';
import { toEnqueueInput, type CreateJobBody } from './create-job-body.js';

/**
 * Checks one job written as the body of `POST /jobs` (a parsed JSON value, `runAt` as ISO-8601
 * text) by the job contract of `@nudge/core`, as the route does, and returns the store's input
 * for it. Kinds and the kinds' payload schemas are not checked: that needs the handler module.
 * Used by `nudge enqueue`.
 *
 * @throws NudgeError `INVALID_REQUEST` naming the field by its JSON Pointer and what to fix
 *   (`/priority must be an integer from -1000 to 1000 (got 5000)`, `delayMs` with `runAt`);
 *   `PAYLOAD_UNSTORABLE` or `PAYLOAD_TOO_DEEP` for a payload no dialect stores alike
 */
export function validateJobBody(job: unknown): EnqueueInput {
  const problem = jobInputProblem(job, '', 'text');
  if (problem) throw problem;
  return toEnqueueInput(job as CreateJobBody);
}

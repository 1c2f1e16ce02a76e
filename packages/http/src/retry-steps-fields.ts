import { Type, type TSchema } from '@sinclair/typebox';
import { characterString } from './character-string.js';
import { EXPECTED_KEYWORD } from './describe-value-error.js';

/** Longest step name, in characters: the `nudge_job_steps.name` check of migration 0024. */
const MAX_STEP_NAME_CHARS = 200;

/**
 * The body fields of both retries (`POST /jobs/:id/retry`, `POST /jobs/retry`) that say what
 * becomes of a job's recorded steps (`RetrySteps` of `@nudge/store`). Without them every step is
 * kept. Both at once is refused by the store with `INVALID_REQUEST`, which names both.
 */
export const retryStepsFields = {
  fromStep: Type.Optional(
    characterString({
      minLength: 1,
      maxLength: MAX_STEP_NAME_CHARS,
      [EXPECTED_KEYWORD]: `a step name of 1 to ${MAX_STEP_NAME_CHARS} characters`,
      description:
        'Clears the step of this name and every step the job recorded after it, so they run again; the steps before it are kept. Not with resetSteps.',
    }),
  ),
  resetSteps: Type.Optional(
    Type.Boolean({
      description:
        'true clears every step of the job: it runs from the top. Signals sent to it are kept. Not with fromStep.',
    }),
  ),
} satisfies Record<string, TSchema>;

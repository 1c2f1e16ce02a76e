import { NudgeError, hasCharacterCountIn } from '@nudge/core';

/**
 * What a retry does with the job's recorded steps (rows of `nudge_job_steps`), for
 * {@link Store.retryJob} and {@link Store.retryJobs}. With neither field, every step is kept: a
 * repaired job resumes where it failed, its finished steps returning their stored results.
 * Signals sent to the job are never cleared: they were sent, and a wait still finds them.
 */
export interface RetrySteps {
  /**
   * Clears the step of this name and every step the job first recorded after it (a `position`
   * greater or equal), so they run again; the steps before it are kept. 1 to
   * {@link MAX_STEP_NAME_CHARS} characters. Not with `resetSteps`.
   */
  readonly fromStep?: string;
  /** `true` clears every step of the job: it runs from the top. Not with `fromStep`. @defaultValue false */
  readonly resetSteps?: boolean;
}

/** Longest step name, in characters (Unicode code points), as the `nudge_job_steps.name` check. */
export const MAX_STEP_NAME_CHARS = 200;

/** What a retry clears of a job's steps: nothing, every step, or a step and those after it. */
export type StepClearing =
  { readonly type: 'none' } | { readonly type: 'all' } | { readonly type: 'from'; readonly name: string };

/**
 * Checks `steps` before any row is read, and says what the retry clears.
 * @throws NudgeError `INVALID_REQUEST` for `fromStep` with `resetSteps: true`, or a `fromStep`
 *   that is not a string of 1 to {@link MAX_STEP_NAME_CHARS} characters
 */
export function checkRetrySteps(steps: RetrySteps | undefined): StepClearing {
  const fromStep = steps?.fromStep;
  const reset = steps?.resetSteps === true;
  if (fromStep !== undefined && reset)
    throw new NudgeError(
      'INVALID_REQUEST',
      `give fromStep or resetSteps, not both (got fromStep ${JSON.stringify(fromStep)} and resetSteps true): fromStep clears that step and the ones after it, resetSteps clears them all`,
    );
  if (
    fromStep !== undefined &&
    (typeof fromStep !== 'string' || !hasCharacterCountIn(fromStep, 1, MAX_STEP_NAME_CHARS))
  )
    throw new NudgeError(
      'INVALID_REQUEST',
      `fromStep must be a step name of 1 to ${MAX_STEP_NAME_CHARS} characters (got ${JSON.stringify(fromStep)})`,
    );
  if (reset) return { type: 'all' };
  return fromStep === undefined ? { type: 'none' } : { type: 'from', name: fromStep };
}

/** The error of a single retry whose `fromStep` names no step of the job; nothing was changed. */
export function stepNotFoundError(id: number, name: string): NudgeError {
  return new NudgeError(
    'STEP_NOT_FOUND',
    `job ${id} has no step named ${JSON.stringify(name)}, so fromStep cannot clear from it: name a step the job recorded (GET /jobs/${id} lists them), send resetSteps to clear them all, or neither to keep them all; nothing was changed`,
  );
}

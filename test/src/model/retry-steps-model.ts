// What a retry does to a job's steps in the model test: keeps them, clears them from a step on
// (`fromStep`), or clears them all (`resetSteps`). A cleared step may run again, and a cleared
// wait may return another answer: the operator asked for it.
import fc from 'fast-check';
import type { RetrySteps } from '@nudge/store';
import { SIGNAL_NAMES, SLEEP_NAMES, STEP_NAMES, stepKey } from './durable-state.js';
import type { Model } from './model-state.js';

/** A retry's step option: none (most often), `fromStep` of any name the commands use, or `resetSteps`. */
export const retryStepsArb: fc.Arbitrary<RetrySteps | undefined> = fc.oneof(
  { weight: 3, arbitrary: fc.constant(undefined) },
  {
    weight: 2,
    arbitrary: fc.record({ fromStep: fc.constantFrom(...STEP_NAMES, ...SLEEP_NAMES, ...SIGNAL_NAMES) }),
  },
  { weight: 1, arbitrary: fc.constant({ resetSteps: true }) },
);

/**
 * Applies to the model a retry of job `id` that went through with `steps`: every step row goes
 * with `resetSteps`; with `fromStep`, the row of that name and every row first recorded after it
 * (a job without that step keeps them all: only a bulk retry goes through then). Signals stay.
 */
export function clearRetriedSteps(
  model: Model,
  id: number,
  steps: RetrySteps | undefined,
  single: boolean,
): void {
  const rows = model.durable.steps.get(id);
  if (!rows || steps === undefined) return;
  const names = [...rows.keys()];
  const from =
    steps.resetSteps === true ? 0 : steps.fromStep === undefined ? -1 : names.indexOf(steps.fromStep);
  if (from < 0) {
    if (single && steps.fromStep !== undefined) model.trace.push(`  #${id} has no step ${steps.fromStep}`);
    return;
  }
  for (const name of names.slice(from)) {
    rows.delete(name);
    model.durable.finished.delete(stepKey(id, name));
    model.durable.resolutions.delete(stepKey(id, name));
  }
  model.trace.push(`  #${id}'s steps from ${names[from]} cleared`);
}

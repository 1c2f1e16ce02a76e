// How the model test reports a broken invariant: an error naming it, with the run's trace.
import { describeJob, type Model } from './model-state.js';

/** An invariant of the model that the store broke; the message says which and how. */
export class ModelViolation extends Error {
  override readonly name = 'ModelViolation';
}

/** Throws a {@link ModelViolation} with `message`, the run's trace and its jobs as last read. */
export function violation(model: Model, message: string): never {
  const jobs = [...model.snapshot.values()].sort((x, y) => x.id - y.id).map(describeJob);
  throw new ModelViolation(
    `${message}\n--- what the run did (${model.dialect}) ---\n${model.trace.join('\n')}\n--- jobs as last read ---\n${jobs.join('\n') || '(none)'}`,
  );
}

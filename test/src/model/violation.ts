// How the model test reports a broken invariant: an error naming it, with the run's trace.
import { describeJob, type Model } from './model-state.js';

/** An invariant of the model that the store broke; the message says which and how. */
export class ModelViolation extends Error {
  override readonly name = 'ModelViolation';
}

/** Throws a {@link ModelViolation} with `message`, the run's trace and its jobs as last read. */
export function violation(model: Model, message: string): never {
  const jobs = [...model.snapshot.values()]
    .sort((x, y) => x.id - y.id)
    .map((job) => {
      const wait = model.durable.waits.get(job.id);
      const steps = [...(model.durable.steps.get(job.id) ?? [])].map(([name, s]) => `${name} ${s.status}`);
      const signals = (model.durable.signals.get(job.id) ?? []).map((s) => s.name);
      return [
        describeJob(job),
        wait ? `waits for ${wait.name} until ${wait.deadlineMs ?? 'ever'}` : '',
        steps.length > 0 ? `steps [${steps.join(', ')}]` : '',
        signals.length > 0 ? `signals [${signals.join(', ')}]` : '',
      ]
        .filter(Boolean)
        .join(', ');
    });
  throw new ModelViolation(
    `${message}\n--- what the run did (${model.dialect}) ---\n${model.trace.join('\n')}\n--- jobs as last read ---\n${jobs.join('\n') || '(none)'}`,
  );
}

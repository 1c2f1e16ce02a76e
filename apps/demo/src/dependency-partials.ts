import type { JobDependency } from '@nudge/server/handlers';
import type { DelayPartial } from './delay-partial.js';
import { parseDelayPartial } from './parse-delay-partial.js';

/**
 * The partials of the `flightDelayPart` jobs a merge job depends on, from its
 * `ctx.dependencies` (each part's result, read by the server when the merge was claimed): the
 * merge job's inputs, in the order of the parts' ids. No HTTP call and no counting of finished
 * parts: the merge runs only once every part has finished.
 *
 * @throws Error when there is no dependency, a part did not succeed, or its result is not a partial
 */
export function dependencyPartials(dependencies: Readonly<Record<number, JobDependency>>): DelayPartial[] {
  const entries = Object.entries(dependencies);
  if (entries.length === 0) {
    throw new Error('the merge job has no dependencies: enqueue it with dependsOn naming the part jobs');
  }
  return entries.map(([id, dependency]) => {
    if (dependency.status !== 'SUCCEEDED') {
      throw new Error(`part job ${id} is ${dependency.status}: merge only once every part has succeeded`);
    }
    return parseDelayPartial(dependency.result, `part job ${id}`);
  });
}

/**
 * The report an `archiveReport` job writes when its payload carries none: the result of the one
 * job it depends on (the merge job of the flights-3m flow).
 * @throws Error when the job has not exactly one dependency, or it did not succeed
 */
export function dependencyReport(dependencies: Readonly<Record<number, JobDependency>>): unknown {
  const entries = Object.entries(dependencies);
  const [only] = entries;
  if (entries.length !== 1 || only === undefined) {
    throw new Error(
      `an archiveReport job without a report in its payload must depend on exactly one job (it has ${entries.length})`,
    );
  }
  const [id, dependency] = only;
  if (dependency.status !== 'SUCCEEDED')
    throw new Error(`job ${id} is ${dependency.status}: nothing to archive`);
  return dependency.result;
}

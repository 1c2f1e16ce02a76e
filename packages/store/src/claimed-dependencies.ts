import type { ClaimedJob } from './claim-types.js';
import type { DependencyOutcome, DependencyOutcomeOptions } from './read-types.js';

/** What {@link withDependencyOutcomes} reads the outcomes with: `Store.dependencyOutcomes`. */
export type ReadDependencyOutcomes = (
  ids: readonly number[],
  options: DependencyOutcomeOptions,
) => Promise<Map<number, DependencyOutcome>>;

/**
 * `jobs` with `dependenciesJson` set on each job that has dependencies: their statuses and
 * results, read in one query after the claim (with the claimed jobs' own due times, in the same
 * query). A claim without such jobs reads nothing more. A first attempt also gets
 * `dependencyWaitMs` (see {@link dependencyWaitMs}).
 */
export async function withDependencyOutcomes(
  jobs: ClaimedJob[],
  read: ReadDependencyOutcomes,
): Promise<ClaimedJob[]> {
  const ids = new Set<number>();
  for (const job of jobs) {
    if (job.dependsOn === undefined) continue;
    for (const id of job.dependsOn) ids.add(id);
    ids.add(job.id);
  }
  if (ids.size === 0) return jobs;
  const outcomes = await read([...ids], { results: true, times: true });
  return jobs.map((job) => {
    if (job.dependsOn === undefined) return job;
    const own: Record<number, { status: DependencyOutcome['status']; result: DependencyOutcome['result'] }> =
      {};
    for (const id of job.dependsOn) {
      const outcome = outcomes.get(id);
      if (outcome !== undefined) own[id] = { status: outcome.status, result: outcome.result };
    }
    const waited =
      job.attempt === 1 ? dependencyWaitMs(job.dependsOn, outcomes.get(job.id)?.runAt, outcomes) : undefined;
    return {
      ...job,
      dependenciesJson: JSON.stringify(own),
      ...(waited === undefined ? {} : { dependencyWaitMs: waited }),
    };
  });
}

/**
 * How long a job waited on its dependencies, in ms, by the database clock: from when it was due
 * (`runAt`: its enqueue, unless delayed) to its release, the finish of its last dependency; `0`
 * when they had all finished by then (a delayed job, or one enqueued after them). `undefined`
 * when it cannot be told: a dependency deleted by retention, or one not finished.
 */
export function dependencyWaitMs(
  dependsOn: readonly number[],
  runAt: Date | undefined,
  outcomes: ReadonlyMap<number, DependencyOutcome>,
): number | undefined {
  if (runAt === undefined) return undefined;
  let released = Number.NEGATIVE_INFINITY;
  for (const id of dependsOn) {
    const finished = outcomes.get(id)?.finishedAt;
    if (finished === undefined || finished === null) return undefined;
    released = Math.max(released, finished.getTime());
  }
  return Math.max(0, released - runAt.getTime());
}

import type { ClaimedJob } from './claim-types.js';
import type { DependencyOutcome } from './read-types.js';

/** What {@link withDependencyOutcomes} reads the outcomes with: `Store.dependencyOutcomes`. */
export type ReadDependencyOutcomes = (
  ids: readonly number[],
  options: { readonly results: boolean },
) => Promise<Map<number, DependencyOutcome>>;

/**
 * `jobs` with `dependenciesJson` set on each job that has dependencies: their statuses and
 * results, read in one query after the claim. A claim without such jobs reads nothing more.
 */
export async function withDependencyOutcomes(
  jobs: ClaimedJob[],
  read: ReadDependencyOutcomes,
): Promise<ClaimedJob[]> {
  const ids = new Set<number>();
  for (const job of jobs) for (const id of job.dependsOn ?? []) ids.add(id);
  if (ids.size === 0) return jobs;
  const outcomes = await read([...ids], { results: true });
  return jobs.map((job) => {
    if (job.dependsOn === undefined) return job;
    const own: Record<number, DependencyOutcome> = {};
    for (const id of job.dependsOn) {
      const outcome = outcomes.get(id);
      if (outcome !== undefined) own[id] = outcome;
    }
    return { ...job, dependenciesJson: JSON.stringify(own) };
  });
}

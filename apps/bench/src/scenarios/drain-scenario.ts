import { formatNumber } from '../format-number.js';
import { comparisonRows, type SystemResult } from './comparison-rows.js';
import { measureDrain, type DrainMeasurement } from './measure-drain.js';
import type { Scenario } from './scenario.js';
import { withSystem } from './with-system.js';

/** Sums lost and duplicate runs and notes unconfirmed drains. */
export function drainResult(
  spec: { readonly id: string; readonly label: string },
  runs: readonly DrainMeasurement[],
): SystemResult {
  const unconfirmed = runs.filter((run) => !run.confirmed).length;
  return {
    id: spec.id,
    label: spec.label,
    values: runs.map((run) => run.jobsPerSecond),
    lost: runs.reduce((sum, run) => sum + run.lost, 0),
    duplicate: runs.reduce((sum, run) => sum + run.duplicate, 0),
    ...(unconfirmed > 0 ? { note: `storage did not confirm ${unconfirmed} run(s)` } : {}),
  };
}

/** Drain: N no-op jobs committed in one batch while one idle worker instance waits. */
export const drainScenario: Scenario = {
  name: 'drain',
  summary:
    'N no-op jobs enqueued in one batch to one idle worker instance, after one untimed warm-up drain; jobs/s from commit to the last handler report',
  run: async (context) => {
    const { drainJobs, repeat } = context.options;
    const results: SystemResult[] = [];
    for (const spec of context.systems) {
      const runs = await withSystem(spec, context.systemContext, async (system) => {
        // One untimed run first: every system's first drain pays for its JIT warm-up and cold caches.
        const warmUp = await measureDrain(system, context.listener, 'noop', drainJobs);
        context.log(
          `drain ${spec.label} warm-up: ${formatNumber(warmUp.jobsPerSecond)} jobs/s (not counted)`,
        );
        const measured: DrainMeasurement[] = [];
        for (let i = 0; i < repeat; i += 1) {
          const run = await measureDrain(system, context.listener, 'noop', drainJobs);
          context.log(
            `drain ${spec.label} #${i + 1}: ${formatNumber(run.jobsPerSecond)} jobs/s (lost ${run.lost}, dup ${run.duplicate})`,
          );
          measured.push(run);
        }
        return measured;
      });
      results.push(drainResult(spec, runs));
    }
    return comparisonRows(
      `drain ${formatNumber(drainJobs)} no-op`,
      'jobs/s (higher is better)',
      results,
      formatNumber,
    );
  },
};

import { availableParallelism } from 'node:os';
import { bareThreadsJobsPerSecond } from '../bare-threads.js';
import { formatNumber, formatPercent } from '../format-number.js';
import { median } from '../median.js';
import { comparisonRows, type SystemResult } from './comparison-rows.js';
import { drainResult } from './drain-scenario.js';
import { measureDrain, type DrainMeasurement } from './measure-drain.js';
import type { Scenario, ScenarioContext } from './scenario.js';
import { withSystem } from './with-system.js';

/**
 * The most CPU-bound jobs per second this machine can finish: every core busy with nothing but
 * job bodies, `availableParallelism() / per-job CPU seconds`.
 */
export function cpuLimitJobsPerSecond(context: ScenarioContext): number {
  return availableParallelism() / (context.burn.cpuMsPerJob / 1000);
}

/** Drains `jobs` burn jobs `repeat` times on a started system. */
export async function burnDrains(
  context: ScenarioContext,
  label: string,
  run: (index: number) => Promise<DrainMeasurement>,
): Promise<DrainMeasurement[]> {
  const runs: DrainMeasurement[] = [];
  for (let i = 0; i < context.options.repeat; i += 1) {
    const measured = await run(i);
    const share = formatPercent(measured.jobsPerSecond, cpuLimitJobsPerSecond(context));
    context.log(
      `cpu ${label} #${i + 1}: ${formatNumber(measured.jobsPerSecond)} jobs/s = ${share} of the limit`,
    );
    runs.push(measured);
  }
  return runs;
}

/**
 * CPU: jobs that each burn the calibrated CPU time, every system in its best configuration for
 * them (`StartOptions.cpuBound`): nudge's `cpu` kind on one thread per core, graphile-worker
 * and pg-boss with one worker process per core, BullMQ with sandboxed processors in worker threads.
 */
export const cpuScenario: Scenario = {
  name: 'cpu',
  summary:
    'N jobs that each burn the calibrated CPU time, each system in its best configuration for them (nudge: one thread per core; graphile-worker and pg-boss: one process per core; BullMQ: sandboxed processors in worker threads): throughput ÷ (cores ÷ per-job CPU seconds) = share of the machine limit; also bare worker threads with no queue (the ceiling a perfect queue could reach), and nudge with one thread more than cores',
  run: async (context) => {
    const { cpuJobs } = context.options;
    const limit = cpuLimitJobsPerSecond(context);
    const bareRuns: number[] = [];
    for (let i = 0; i < context.options.repeat; i += 1) {
      bareRuns.push(await bareThreadsJobsPerSecond(context.burn.iterations, cpuJobs));
      context.log(`cpu bare threads #${i + 1}: ${formatNumber(bareRuns[i] ?? 0)} jobs/s`);
    }
    const ceiling = median(bareRuns);
    const share = (rate: number): string =>
      `${formatNumber(rate)} (${formatPercent(rate, limit)}; ${formatPercent(rate, ceiling)} of bare)`;
    const results: SystemResult[] = [];
    const variants = context.systems
      .filter((s) => s.id !== 'nudge-sqlite')
      .flatMap((spec) => {
        const plain = { spec, id: spec.id, label: spec.cpuLabel, env: undefined };
        if (spec.id !== 'nudge') return [plain];
        const threads = String(availableParallelism() + 1);
        const label = `${spec.cpuLabel}, NUDGE_THREADS=${threads}`;
        return [plain, { spec, id: 'nudge-oversubscribed', label, env: { NUDGE_THREADS: threads } }];
      });
    for (const { spec, id, label, env } of variants) {
      const runs = await withSystem(
        spec,
        context.systemContext,
        (system) =>
          burnDrains(context, label, () =>
            measureDrain(system, context.listener, 'burn', cpuJobs, context.burn.iterations),
          ),
        env ? { env, cpuBound: true } : { cpuBound: true },
      );
      const result = drainResult({ id, label }, runs);
      results.push({ ...result, display: share(median(result.values)) });
    }
    const rows = comparisonRows(
      `cpu ${formatNumber(cpuJobs)} × ${context.burn.cpuMsPerJob.toFixed(1)} ms CPU`,
      `jobs/s (share of the ${availableParallelism()}-core limit of ${formatNumber(limit)} jobs/s, and of bare threads; higher is better)`,
      results,
      formatNumber,
    );
    return [
      {
        scenario: rows[0]?.scenario ?? 'cpu',
        system: `bare worker threads × ${availableParallelism()}, no queue`,
        metric: 'jobs/s (the ceiling a perfect queue could reach on this machine)',
        value: `${formatNumber(ceiling)} (${formatPercent(ceiling, limit)})`,
        ratio: '',
        lost: undefined,
        duplicate: undefined,
        runs: bareRuns.length,
      },
      ...rows,
    ];
  },
};

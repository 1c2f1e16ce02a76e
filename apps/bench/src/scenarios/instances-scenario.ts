import { formatNumber, formatRatio } from '../format-number.js';
import { median } from '../median.js';
import type { ResultRow } from '../result-row.js';
import { cpuLimitJobsPerSecond } from './cpu-scenario.js';
import { drainResult } from './drain-scenario.js';
import type { DrainMeasurement } from './measure-drain.js';
import { nudgeDrains } from './nudge-drains.js';
import type { Scenario } from './scenario.js';

/** instances: 1 … `--max-instances` nudge servers sharing one PostgreSQL database. */
export const instancesScenario: Scenario = {
  name: 'instances',
  summary:
    '1, 2, 3 nudge servers on one PostgreSQL database, each its own process: no-op and CPU-bound drains, jobs/s and ratio to one instance',
  run: async (context) => {
    const { maxInstances, drainJobs, cpuJobs } = context.options;
    const rows: ResultRow[] = [];
    for (const kind of ['noop', 'burn'] as const) {
      const jobs = kind === 'noop' ? drainJobs : cpuJobs;
      let one: DrainMeasurement[] = [];
      for (let instances = 1; instances <= maxInstances; instances += 1) {
        const runs = await nudgeDrains(context, {
          kind,
          jobs,
          instances,
          label: `instances: ${instances} × nudge, ${kind}`,
        });
        if (instances === 1) one = runs;
        const result = drainResult({ id: 'nudge', label: `nudge (PostgreSQL) × ${instances}` }, runs);
        const rate = median(result.values);
        const oneRate = median(one.map((run) => run.jobsPerSecond));
        rows.push({
          scenario:
            kind === 'noop'
              ? `instances, drain ${formatNumber(jobs)} no-op`
              : `instances, ${formatNumber(jobs)} CPU-bound`,
          system: result.label,
          metric:
            kind === 'noop'
              ? 'jobs/s (higher is better)'
              : `jobs/s (limit ${formatNumber(cpuLimitJobsPerSecond(context))}; higher is better)`,
          value: formatNumber(rate),
          ratio: instances === 1 ? '' : `${formatRatio(rate, oneRate)} of one`,
          lost: result.lost,
          duplicate: result.duplicate,
          runs: runs.length,
          ...(result.note === undefined ? {} : { note: result.note }),
        });
      }
    }
    return rows;
  },
};

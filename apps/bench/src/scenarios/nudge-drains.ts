import type { StartOptions } from '../bench-system.js';
import type { BenchKind } from '../bench-job.js';
import { formatNumber } from '../format-number.js';
import { nudgeSystem } from '../nudge/nudge-system.js';
import { measureDrain, type DrainMeasurement } from './measure-drain.js';
import type { ScenarioContext } from './scenario.js';
import { withSystem } from './with-system.js';

/** What {@link nudgeDrains} drains. */
export interface NudgeDrainOptions extends StartOptions {
  /** @defaultValue `'noop'` */
  readonly kind?: BenchKind;
  /** @defaultValue `--drain-jobs` */
  readonly jobs?: number;
  /** Progress label. */
  readonly label: string;
}

/** Starts nudge on a fresh PostgreSQL database and drains `--repeat` times. */
export async function nudgeDrains(
  context: ScenarioContext,
  options: NudgeDrainOptions,
): Promise<DrainMeasurement[]> {
  const kind = options.kind ?? 'noop';
  const jobs = options.jobs ?? context.options.drainJobs;
  const iterations = kind === 'burn' ? context.burn.iterations : undefined;
  return withSystem(
    nudgeSystem('postgres'),
    context.systemContext,
    async (system) => {
      const runs: DrainMeasurement[] = [];
      for (let i = 0; i < context.options.repeat; i += 1) {
        const run = await measureDrain(system, context.listener, kind, jobs, iterations);
        context.log(
          `${options.label} #${i + 1}: ${formatNumber(run.jobsPerSecond)} jobs/s (lost ${run.lost}, dup ${run.duplicate})`,
        );
        runs.push(run);
      }
      return runs;
    },
    options,
  );
}

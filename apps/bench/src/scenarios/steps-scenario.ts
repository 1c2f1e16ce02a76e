import { setTimeout as sleep } from 'node:timers/promises';
import { BENCH_STEPS } from '../bench-job.js';
import { formatNumber, formatPercent } from '../format-number.js';
import { median } from '../median.js';
import { nudgeSystem, type RunningNudge } from '../nudge/nudge-system.js';
import type { ResultRow } from '../result-row.js';
import { countedDrain, totalCalls, type CountedDrain } from './counted-drain.js';
import { databaseCommits, STATS_REPORT_LAG_MS } from './idle-load.js';
import type { Scenario, ScenarioContext } from './scenario.js';
import { withSystem } from './with-system.js';

type Dialect = 'postgres' | 'sqlite';

/** What one dialect measured. */
interface StepsResult {
  readonly steps: readonly CountedDrain[];
  /** No-op drains of as many jobs, alternated with {@link steps} on the same server. */
  readonly noop: readonly CountedDrain[];
  /**
   * PostgreSQL only: transactions committed in the server's database per step
   * (`pg_stat_database.xact_commit`), a steps drain's less a no-op drain's of as many jobs.
   */
  readonly commitsPerStep?: number;
}

/**
 * Transactions committed in `system`'s database during one no-op drain and one steps drain, each
 * read {@link STATS_REPORT_LAG_MS} after the last one ended so the server's backends have reported
 * them; the reading connects to the admin database, so it is not counted.
 */
async function commitsPerStep(context: ScenarioContext, system: RunningNudge, jobs: number): Promise<number> {
  if (system.storage.kind !== 'postgres') return Number.NaN;
  const adminUrl = context.systemContext.postgres.adminUrl;
  const databases = [system.storage.database];
  await sleep(STATS_REPORT_LAG_MS);
  const start = await databaseCommits(adminUrl, databases);
  await countedDrain(system, context.listener, 'noop', jobs);
  await sleep(STATS_REPORT_LAG_MS);
  const afterNoop = await databaseCommits(adminUrl, databases);
  await countedDrain(system, context.listener, 'steps', jobs);
  await sleep(STATS_REPORT_LAG_MS);
  const afterSteps = await databaseCommits(adminUrl, databases);
  const noop = afterNoop - start;
  const steps = afterSteps - afterNoop;
  context.log(
    `steps ${jobs} jobs: ${steps} transactions committed, ${noop} in a no-op drain of as many jobs`,
  );
  return (steps - noop) / (jobs * BENCH_STEPS);
}

/** Warm-up, `--repeat` rounds of a no-op and a steps drain in turn, then the commit count. */
async function measureDialect(context: ScenarioContext, dialect: Dialect): Promise<StepsResult> {
  const { stepsJobs, repeat } = context.options;
  const spec = nudgeSystem(dialect);
  return withSystem(spec, context.systemContext, async (system) => {
    // Untimed: the first drains pay for JIT warm-up and cold caches.
    await countedDrain(system, context.listener, 'noop', stepsJobs);
    await countedDrain(system, context.listener, 'steps', stepsJobs);
    const steps: CountedDrain[] = [];
    const noop: CountedDrain[] = [];
    for (let round = 0; round < repeat; round += 1) {
      // In turn first (A B, B A, …), so both see the same drift of the machine's load.
      for (const kind of round % 2 === 0 ? (['noop', 'steps'] as const) : (['steps', 'noop'] as const)) {
        const run = await countedDrain(system, context.listener, kind, stepsJobs);
        (kind === 'steps' ? steps : noop).push(run);
        context.log(
          `steps ${spec.label}, ${kind} #${round + 1}: ${formatNumber(run.jobsPerSecond)} jobs/s, ${formatNumber(totalCalls(run.calls) / stepsJobs)} store calls a job (lost ${run.lost}, dup ${run.duplicate})`,
        );
      }
    }
    if (dialect !== 'postgres') return { steps, noop };
    return { steps, noop, commitsPerStep: await commitsPerStep(context, system, stepsJobs) };
  });
}

const sum = (runs: readonly CountedDrain[], field: 'lost' | 'duplicate'): number =>
  runs.reduce((total, run) => total + run[field], 0);

/** Median over `runs` of the calls of `method` (every method when undefined) per step. */
function callsPerStep(runs: readonly CountedDrain[], jobs: number, method?: string): number {
  return median(
    runs.map(
      (run) =>
        (method === undefined ? totalCalls(run.calls) : (run.calls.get(method) ?? 0)) / (jobs * BENCH_STEPS),
    ),
  );
}

/**
 * Store calls per job by method that a steps drain makes beyond a no-op drain of as many jobs
 * (medians over the runs), largest first, such as `recordStep 10.0, claim 0.12`.
 */
function extraCallsPerJob(result: StepsResult, jobs: number): string {
  const methods = new Set([...result.steps, ...result.noop].flatMap((run) => [...run.calls.keys()]));
  const perJob = (runs: readonly CountedDrain[], method: string): number =>
    median(runs.map((run) => (run.calls.get(method) ?? 0) / jobs));
  return [...methods]
    .map((method) => [method, perJob(result.steps, method) - perJob(result.noop, method)] as const)
    .filter(([, extra]) => Math.abs(extra) >= 0.005)
    .sort((a, b) => b[1] - a[1])
    .map(([method, extra]) => `${method} ${formatNumber(extra)}`)
    .join(', ');
}

/** The two rows of one dialect: jobs/s, and database writes per step. */
function rowsOf(label: string, jobs: number, result: StepsResult): ResultRow[] {
  const stepsRate = median(result.steps.map((run) => run.jobsPerSecond));
  const noopRate = median(result.noop.map((run) => run.jobsPerSecond));
  const pairs = result.steps.map(
    (run, i) => run.jobsPerSecond / (result.noop[i]?.jobsPerSecond ?? Number.NaN),
  );
  const recordSteps = callsPerStep(result.steps, jobs, 'recordStep');
  const extraCalls = callsPerStep(result.steps, jobs) - callsPerStep(result.noop, jobs);
  const postgres = result.commitsPerStep !== undefined;
  const scenario = `steps ${formatNumber(jobs)} jobs × ${BENCH_STEPS} no-op steps`;
  return [
    {
      scenario,
      system: label,
      metric: 'jobs/s (higher is better)',
      value: formatNumber(stepsRate),
      ratio: `${formatPercent(stepsRate, noopRate)} of no-op jobs`,
      lost: sum(result.steps, 'lost'),
      duplicate: sum(result.steps, 'duplicate'),
      runs: result.steps.length,
      note: `no-op drain of as many jobs on the same server, alternated: ${formatNumber(noopRate)} jobs/s; steps ÷ no-op per round ${pairs.map((ratio) => formatPercent(ratio, 1)).join(', ')}`,
    },
    {
      scenario,
      system: label,
      metric: postgres
        ? 'transactions committed per step (lower is better)'
        : 'store calls per step (lower is better)',
      value: formatNumber(postgres ? (result.commitsPerStep ?? Number.NaN) : extraCalls),
      ratio: '',
      lost: undefined,
      duplicate: undefined,
      runs: postgres ? 1 : result.steps.length,
      note: [
        ...(postgres
          ? [
              'pg_stat_database.xact_commit of the server’s database over one steps drain, less over one no-op drain of as many jobs, ÷ steps',
            ]
          : []),
        `store calls (nudge_store_calls_total) of a steps drain less a no-op drain's, ÷ steps: ${formatNumber(extraCalls)}, of which recordStep ${formatNumber(recordSteps)}; per job: ${extraCallsPerJob(result, jobs)}`,
      ].join('; '),
    },
  ];
}

/**
 * steps: the cost of durable steps. Jobs of {@link BENCH_STEPS} no-op `ctx.step` calls drained
 * beside no-op jobs on the same server, on each dialect `--systems` selects (`nudge` for
 * PostgreSQL, `nudge-sqlite` for SQLite), and the database writes each step makes.
 */
export const stepsScenario: Scenario = {
  name: 'steps',
  summary: `N jobs of ${BENCH_STEPS} no-op durable steps each (\`ctx.step('s' + i, () => i)\`, an \`async\` kind, reporting after its last step), drained on one idle server after an untimed warm-up, alternated with a no-op drain of as many jobs; jobs/s from commit to the last report, and database writes per step: on PostgreSQL the transactions committed in the server's database (\`pg_stat_database.xact_commit\`, read ${STATS_REPORT_LAG_MS / 1000} s after each drain) over one steps drain less one no-op drain, ÷ steps; on both dialects the server's store calls (\`nudge_store_calls_total\`, one statement or transaction each) counted the same way`,
  run: async (context) => {
    const selected = new Set(context.systems.map((spec) => spec.id));
    const rows: ResultRow[] = [];
    for (const dialect of ['postgres', 'sqlite'] as const) {
      if (!selected.has(dialect === 'postgres' ? 'nudge' : 'nudge-sqlite')) continue;
      const result = await measureDialect(context, dialect);
      rows.push(...rowsOf(nudgeSystem(dialect).label, context.options.stepsJobs, result));
    }
    return rows;
  },
};

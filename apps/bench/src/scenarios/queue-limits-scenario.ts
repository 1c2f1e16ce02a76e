import { createStore, type QueueLimitsPatch } from '@nudge/store';
import { formatNumber, formatPercent } from '../format-number.js';
import { median } from '../median.js';
import { nudgeSystem } from '../nudge/nudge-system.js';
import type { ResultRow } from '../result-row.js';
import { measureDrain, type DrainMeasurement } from './measure-drain.js';
import type { Scenario, ScenarioContext } from './scenario.js';
import { withSystem } from './with-system.js';

/** Limits no drain comes near: each is checked in every claim, and none holds a job back. */
const NEVER_BINDING: QueueLimitsPatch = {
  concurrency: 100_000,
  rateLimit: { limit: 1_000_000, intervalMs: 1_000 },
  keyConcurrency: 100_000,
};

/** The rate of the rate-limited drain: starts per window. */
const RATE = { limit: 200, intervalMs: 1_000 };

/** The bench jobs' queue: they name none. */
const QUEUE = 'default';

/** Drains on a fresh database whose queue has `limits` (none when undefined); the first run is a warm-up. */
async function drains(
  context: ScenarioContext,
  dialect: 'postgres' | 'sqlite',
  jobs: number,
  runs: number,
  limits: QueueLimitsPatch | undefined,
  label: string,
): Promise<DrainMeasurement[]> {
  const prepare = async (databaseUrl: string): Promise<void> => {
    if (!limits) return;
    const store = createStore(databaseUrl);
    try {
      await store.setQueueLimits(QUEUE, limits);
    } finally {
      await store.close();
    }
  };
  return withSystem(
    nudgeSystem(dialect),
    context.systemContext,
    async (system) => {
      await measureDrain(system, context.listener, 'noop', jobs);
      const measured: DrainMeasurement[] = [];
      for (let i = 0; i < runs; i += 1) {
        const run = await measureDrain(system, context.listener, 'noop', jobs);
        context.log(
          `${label} #${i + 1}: ${formatNumber(run.jobsPerSecond)} jobs/s (lost ${run.lost}, dup ${run.duplicate})`,
        );
        measured.push(run);
      }
      return measured;
    },
    { prepare },
  );
}

const sum = (runs: readonly DrainMeasurement[], field: 'lost' | 'duplicate'): number =>
  runs.reduce((total, run) => total + run[field], 0);

/**
 * queue-limits: the cost of cluster-wide limits that never bind (the same drain with and
 * without them, alternated, on each dialect `--systems` selects: `nudge` for PostgreSQL,
 * `nudge-sqlite` for SQLite), and a rate-limited queue's measured rate against its limit.
 */
export const queueLimitsScenario: Scenario = {
  name: 'queue-limits',
  summary: `N no-op jobs drained from a queue with limits that never bind (concurrency, a rate and a per-key limit) against the same queue without limits, alternated; then ${RATE.limit} starts per ${RATE.intervalMs} ms, measured`,
  run: async (context) => {
    const { drainJobs, repeat } = context.options;
    const rows: ResultRow[] = [];
    const selected = new Set(context.systems.map((spec) => spec.id));
    const dialects = (['postgres', 'sqlite'] as const).filter((dialect) =>
      selected.has(dialect === 'postgres' ? 'nudge' : 'nudge-sqlite'),
    );
    for (const dialect of dialects) {
      const name = dialect === 'postgres' ? 'nudge (PostgreSQL)' : 'nudge (SQLite)';
      const open: DrainMeasurement[] = [];
      const limited: DrainMeasurement[] = [];
      // Alternated, so that both sides see the same drift of the machine's load, and in turn first
      // (A B, B A, …), so that neither always runs right after the other's cleanup.
      for (let round = 0; round < repeat; round += 1) {
        const runOpen = async (): Promise<void> => {
          open.push(
            ...(await drains(context, dialect, drainJobs, 1, undefined, `queue-limits ${name}, no limits`)),
          );
        };
        const runLimited = async (): Promise<void> => {
          limited.push(
            ...(await drains(context, dialect, drainJobs, 1, NEVER_BINDING, `queue-limits ${name}, limits`)),
          );
        };
        if (round % 2 === 0) {
          await runOpen();
          await runLimited();
        } else {
          await runLimited();
          await runOpen();
        }
      }
      const pairs = limited.map((run, i) => run.jobsPerSecond / (open[i]?.jobsPerSecond ?? Number.NaN));
      const openRate = median(open.map((run) => run.jobsPerSecond));
      const limitedRate = median(limited.map((run) => run.jobsPerSecond));
      const scenario = `queue-limits drain ${formatNumber(drainJobs)} no-op`;
      rows.push(
        {
          scenario,
          system: `${name}, no limits`,
          metric: 'jobs/s (higher is better)',
          value: formatNumber(openRate),
          ratio: '',
          lost: sum(open, 'lost'),
          duplicate: sum(open, 'duplicate'),
          runs: open.length,
        },
        {
          scenario,
          system: `${name}, limits that never bind`,
          metric: 'jobs/s (higher is better)',
          value: formatNumber(limitedRate),
          ratio: `${formatPercent(limitedRate, openRate)} of no limits`,
          lost: sum(limited, 'lost'),
          duplicate: sum(limited, 'duplicate'),
          runs: limited.length,
          // Each round's two runs saw the same drift of the machine's load: their ratio is steadier.
          note: `concurrency 100,000, 1,000,000 per 1,000 ms, 100,000 per key; pairs ${pairs
            .map((ratio) => Math.round(ratio * 100))
            .join(', ')} % (median ${Math.round(median(pairs) * 100)} %)`,
        },
      );
      const rateJobs = RATE.limit * 5;
      const rated = await drains(
        context,
        dialect,
        rateJobs,
        1,
        { rateLimit: RATE },
        `queue-limits ${name}, rate`,
      );
      const measured = median(rated.map((run) => run.jobsPerSecond));
      const limit = (RATE.limit / RATE.intervalMs) * 1_000;
      rows.push({
        scenario: `queue-limits rate ${RATE.limit}/${RATE.intervalMs} ms, ${formatNumber(rateJobs)} no-op`,
        system: name,
        metric: 'jobs/s started (the limit is the most)',
        value: formatNumber(measured),
        ratio: `${formatPercent(measured, limit)} of the limit ${formatNumber(limit)}/s`,
        lost: sum(rated, 'lost'),
        duplicate: sum(rated, 'duplicate'),
        runs: rated.length,
        note: 'from the commit to the last report: the first window starts full',
      });
    }
    return rows;
  },
};

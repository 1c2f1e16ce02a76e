import { createStore } from '@nudge/store';
import { formatNumber, formatPercent } from '../format-number.js';
import { median } from '../median.js';
import { nudgeSystem } from '../nudge/nudge-system.js';
import type { ResultRow } from '../result-row.js';
import { measureDrain, type DrainMeasurement } from './measure-drain.js';
import type { Scenario, ScenarioContext } from './scenario.js';
import { withSystem } from './with-system.js';

/** Jobs of the busy key held back beside the drain. */
const HELD = 100_000;

/** The busy key's queue (the bench jobs name none: they run in `default`). */
const BUSY_QUEUE = 'busy';

/**
 * Fills `databaseUrl` with {@link HELD} due no-op jobs of one concurrency key in a queue with a
 * key limit of 1, and one more of that key claimed for an hour by a worker that never reports:
 * the key is at its limit, so every claim of the drain finds them due and held back.
 */
async function holdBusyKey(databaseUrl: string): Promise<void> {
  const store = createStore(databaseUrl);
  try {
    await store.setQueueLimits(BUSY_QUEUE, { keyConcurrency: 1 });
    await store.enqueue({ kind: 'noop', queue: BUSY_QUEUE, concurrencyKey: 'busy' });
    const running = await store.claim({
      workerId: 'bench-busy-key',
      leaseMs: 3_600_000,
      groups: [{ kinds: ['noop'], limit: 1 }],
    });
    if (running.length !== 1) throw new Error('the busy key has no running job');
    for (let start = 0; start < HELD; start += 10_000) {
      await store.enqueueMany(
        Array.from({ length: Math.min(10_000, HELD - start) }, () => ({
          kind: 'noop',
          queue: BUSY_QUEUE,
          concurrencyKey: 'busy',
        })),
      );
    }
  } finally {
    await store.close();
  }
}

/** One drain on a fresh database, beside the busy key's jobs when `held` (after a warm-up drain). */
async function drain(
  context: ScenarioContext,
  dialect: 'postgres' | 'sqlite',
  held: boolean,
  label: string,
): Promise<DrainMeasurement> {
  return withSystem(
    nudgeSystem(dialect),
    context.systemContext,
    async (system) => {
      await measureDrain(system, context.listener, 'noop', context.options.drainJobs);
      const run = await measureDrain(system, context.listener, 'noop', context.options.drainJobs);
      context.log(
        `${label}: ${formatNumber(run.jobsPerSecond)} jobs/s (lost ${run.lost}, dup ${run.duplicate})`,
      );
      return run;
    },
    held ? { prepare: holdBusyKey } : {},
  );
}

/**
 * busy-key: a drain of N no-op jobs alone and beside 100,000 due jobs of one concurrency key held
 * back by its limit in another queue, alternated, on each dialect `--systems` selects (`nudge`:
 * PostgreSQL, `nudge-sqlite`: SQLite). The held-back jobs should cost the drain nothing.
 */
export const busyKeyScenario: Scenario = {
  name: 'busy-key',
  summary: `N no-op jobs drained alone and beside ${formatNumber(HELD)} due jobs of one concurrency key held back by its limit (keyConcurrency 1) in another queue, alternated`,
  run: async (context) => {
    const rows: ResultRow[] = [];
    const selected = new Set(context.systems.map((spec) => spec.id));
    const dialects = (['postgres', 'sqlite'] as const).filter((dialect) =>
      selected.has(dialect === 'postgres' ? 'nudge' : 'nudge-sqlite'),
    );
    for (const dialect of dialects) {
      const name = dialect === 'postgres' ? 'nudge (PostgreSQL)' : 'nudge (SQLite)';
      const alone: DrainMeasurement[] = [];
      const beside: DrainMeasurement[] = [];
      // In turn first (A B, B A, …), so that both sides see the same drift of the machine's load.
      for (let round = 0; round < context.options.repeat; round += 1) {
        const order = round % 2 === 0 ? [false, true] : [true, false];
        for (const held of order) {
          const run = await drain(context, dialect, held, `busy-key ${name}, ${held ? 'beside' : 'alone'}`);
          (held ? beside : alone).push(run);
        }
      }
      const pairs = beside.map((run, i) => run.jobsPerSecond / (alone[i]?.jobsPerSecond ?? Number.NaN));
      const aloneRate = median(alone.map((run) => run.jobsPerSecond));
      const besideRate = median(beside.map((run) => run.jobsPerSecond));
      const scenario = `busy-key drain ${formatNumber(context.options.drainJobs)} no-op`;
      const sum = (runs: readonly DrainMeasurement[], field: 'lost' | 'duplicate'): number =>
        runs.reduce((total, run) => total + run[field], 0);
      rows.push(
        {
          scenario,
          system: `${name}, alone`,
          metric: 'jobs/s (higher is better)',
          value: formatNumber(aloneRate),
          ratio: '',
          lost: sum(alone, 'lost'),
          duplicate: sum(alone, 'duplicate'),
          runs: alone.length,
        },
        {
          scenario,
          system: `${name}, beside ${formatNumber(HELD)} held-back jobs of one key`,
          metric: 'jobs/s (higher is better)',
          value: formatNumber(besideRate),
          ratio: `${formatPercent(besideRate, aloneRate)} of alone`,
          lost: sum(beside, 'lost'),
          duplicate: sum(beside, 'duplicate'),
          runs: beside.length,
          note: `pairs ${pairs.map((ratio) => Math.round(ratio * 100)).join(', ')} % (median ${Math.round(median(pairs) * 100)} %)`,
        },
      );
    }
    return rows;
  },
};

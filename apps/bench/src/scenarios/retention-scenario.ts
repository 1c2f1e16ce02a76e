import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { formatNumber, formatRatio } from '../format-number.js';
import { jobsTableSize, type JobsTableSize } from '../nudge/jobs-table-size.js';
import { nudgeSystem } from '../nudge/nudge-system.js';
import type { ResultRow } from '../result-row.js';
import { benchPayloads } from './bench-payloads.js';
import type { ScenarioContext, Scenario } from './scenario.js';
import { withSystem } from './with-system.js';

/** The jobs go through in this many rounds; sizes are sampled after each. */
const ROUNDS = 10;
/** Jobs per enqueue call (one transaction). */
const BATCH = 10_000;
/** Retention on: succeeded jobs are deleted by the next run, every second. */
const RETENTION_ON = { NUDGE_RETENTION: 'SUCCEEDED=0', NUDGE_PRUNE_INTERVAL_MS: '1000' };
const RETENTION_OFF = { NUDGE_RETENTION: 'SUCCEEDED=keep', NUDGE_PRUNE_INTERVAL_MS: '0' };

interface ChurnRun {
  /** Sizes after each round. */
  readonly sizes: readonly JobsTableSize[];
  readonly jobsPerSecond: number;
  /** Jobs whose handler report never arrived (UDP: a report may be dropped under load). */
  readonly lost: number;
  readonly duplicate: number;
  /** Jobs the database still shows unfinished at the end: a lost job would be one of these. */
  readonly unfinished: number;
  /** Sizes and counts at the end. */
  readonly end: JobsTableSize;
}

const megabytes = (size: JobsTableSize): string =>
  `${((size.tableBytes + size.indexBytes) / 1_048_576).toFixed(1)} MB`;
const total = (size: JobsTableSize): number => size.tableBytes + size.indexBytes;

/** Pushes `jobs` no-op jobs through one nudge instance in {@link ROUNDS} rounds. */
async function churn(
  context: ScenarioContext,
  dialect: 'postgres' | 'sqlite',
  jobs: number,
  env: Record<string, string>,
  label: string,
): Promise<ChurnRun> {
  return withSystem(
    nudgeSystem(dialect),
    context.systemContext,
    async (system) => {
      const tally = context.listener.track(jobs);
      const sizes: JobsTableSize[] = [];
      const perRound = Math.ceil(jobs / ROUNDS);
      const started = performance.now();
      try {
        for (let from = 0; from < jobs; from += perRound) {
          const end = Math.min(jobs, from + perRound);
          for (let batch = from; batch < end; batch += BATCH) {
            await system.enqueueBatch('noop', benchPayloads(tally.run, batch, Math.min(BATCH, end - batch)));
            await system.wake();
          }
          if (!(await tally.waitFor(end - 1, 600_000))) throw new Error(`${label}: job ${end - 1} never ran`);
          const size = await jobsTableSize(system.databaseUrl);
          sizes.push(size);
          context.log(
            `${label}: ${formatNumber(end)} jobs through, ${formatNumber(size.rows)} rows, table + indexes ${megabytes(size)}`,
          );
        }
        const elapsedMs = performance.now() - started;
        // Every round's last job has reported; a report of an earlier one may still be on its way
        // (or dropped: reports are UDP). The database says whether any job is still unfinished.
        await tally.waitFor(undefined, 30_000);
        // Outcomes are written in batches just after the handlers report: give the last ones time.
        let end = await jobsTableSize(system.databaseUrl);
        for (let wait = 0; end.unfinished > 0 && wait < 300; wait += 1) {
          await sleep(100);
          end = await jobsTableSize(system.databaseUrl);
        }
        return {
          sizes,
          jobsPerSecond: (jobs / elapsedMs) * 1000,
          ...tally.exactlyOnce(),
          unfinished: end.unfinished,
          end,
        };
      } finally {
        tally.close();
      }
    },
    { env },
  );
}

/** retention: do the jobs table and its indexes stay bounded under constant churn? */
export const retentionScenario: Scenario = {
  name: 'retention',
  summary:
    'N no-op jobs through one nudge instance in 10 rounds with retention on (NUDGE_RETENTION=SUCCEEDED=0, a run every second) and off: the jobs table and its indexes after the first round and at the end, and the throughput',
  run: async (context) => {
    const jobs = context.options.retentionJobs;
    const rows: ResultRow[] = [];
    for (const dialect of ['postgres', 'sqlite'] as const) {
      const system = dialect === 'postgres' ? 'nudge (PostgreSQL)' : 'nudge (SQLite)';
      const on = await churn(context, dialect, jobs, RETENTION_ON, `retention on, ${dialect}`);
      const off = await churn(context, dialect, jobs, RETENTION_OFF, `retention off, ${dialect}`);
      const scenario = `retention, ${formatNumber(jobs)} no-op jobs`;
      const first = on.sizes[0];
      const last = on.sizes[on.sizes.length - 1];
      const lastOff = off.sizes[off.sizes.length - 1];
      if (!first || !last || !lastOff) throw new Error('retention: no size was measured');
      const largest = on.sizes.reduce((a, b) => (total(b) > total(a) ? b : a));
      const common = { scenario, system, runs: 1 };
      rows.push(
        {
          ...common,
          metric: `jobs table + indexes after ${formatNumber(Math.ceil(jobs / ROUNDS))} jobs, retention on`,
          value: megabytes(first),
          ratio: '',
          lost: undefined,
          duplicate: undefined,
          note: `${formatNumber(first.rows)} rows`,
        },
        {
          ...common,
          metric: `jobs table + indexes after ${formatNumber(jobs)} jobs, retention on`,
          value: megabytes(last),
          ratio: `${formatRatio(total(last), total(first))} of the first round`,
          lost: on.lost,
          duplicate: on.duplicate,
          note: `${formatNumber(last.rows)} rows; largest sample ${megabytes(largest)}; ${on.unfinished} unfinished${on.lost > 0 ? ` (${formatNumber(on.lost)} handler reports missing)` : ''}`,
        },
        {
          ...common,
          metric: `jobs table + indexes after ${formatNumber(jobs)} jobs, retention off`,
          value: megabytes(lastOff),
          ratio: `${formatRatio(total(last), total(lastOff))} with retention on`,
          lost: off.lost,
          duplicate: off.duplicate,
          note: `${formatNumber(lastOff.rows)} rows, ${formatNumber(off.end.succeeded)} SUCCEEDED; ${off.unfinished} unfinished${off.lost > 0 ? ` (${formatNumber(off.lost)} handler reports missing)` : ''}`,
        },
        {
          ...common,
          metric: 'jobs/s through enqueue and drain, retention on',
          value: formatNumber(on.jobsPerSecond),
          ratio: `${formatRatio(on.jobsPerSecond, off.jobsPerSecond)} of retention off`,
          lost: undefined,
          duplicate: undefined,
        },
      );
    }
    return rows;
  },
};

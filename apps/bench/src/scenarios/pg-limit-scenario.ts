import { performance } from 'node:perf_hooks';
import { createStore, PostgresStore } from '@nudge/store';
import { describeCpuPerJob, cpuPerJob, sampleCpu, type CpuSample } from '../cpu-accounting.js';
import { formatNumber, formatPercent } from '../format-number.js';
import { median } from '../median.js';
import type { ResultRow } from '../result-row.js';
import { insertDueRows, runSql } from './filler-rows.js';
import { nudgeDrains } from './nudge-drains.js';
import type { Scenario } from './scenario.js';

/** Claim-and-complete loops that run at once, each on its own store (its own connections). */
const LOOPS = 2;

/** Lease of the loops' claims, in ms: longer than any loop takes. */
const LEASE_MS = 600_000;

interface LoopRun {
  readonly jobsPerSecond: number;
  readonly lost: number;
  readonly duplicate: number;
  readonly cpu?: CpuSample;
}

/**
 * {@link LOOPS} loops, each claiming up to `batch` rows through `PostgresStore.claim` and
 * completing them through `PostgresStore.complete`, until no row is left.
 */
async function claimCompleteLoops(databaseUrl: string, rows: number, batch: number): Promise<LoopRun> {
  await runSql(databaseUrl, ['TRUNCATE nudge_jobs']);
  await insertDueRows(databaseUrl, rows);
  const stores = Array.from({ length: LOOPS }, () => new PostgresStore(databaseUrl, { poolSize: 2 }));
  const claimed = new Map<number, number>();
  try {
    await Promise.all(stores.map((store) => store.ping()));
    const cpuBefore = sampleCpu();
    const start = performance.now();
    await Promise.all(
      stores.map(async (store, loop) => {
        for (;;) {
          const jobs = await store.claim({
            workerId: `bench-loop-${loop}`,
            leaseMs: LEASE_MS,
            groups: [{ kinds: ['noop'], limit: batch }],
          });
          if (jobs.length === 0) return;
          for (const job of jobs) claimed.set(job.id, (claimed.get(job.id) ?? 0) + 1);
          await store.complete(jobs.map((job) => ({ id: job.id, version: job.version, resultJson: null })));
        }
      }),
    );
    const elapsedMs = performance.now() - start;
    const cpuAfter = sampleCpu();
    let duplicate = 0;
    for (const count of claimed.values()) duplicate += count - 1;
    return {
      jobsPerSecond: (rows / elapsedMs) * 1000,
      lost: rows - claimed.size,
      duplicate,
      ...(cpuBefore && cpuAfter ? { cpu: cpuPerJob(cpuBefore, cpuAfter, rows) } : {}),
    };
  } finally {
    await Promise.all(stores.map((store) => store.close()));
  }
}

function cpuNote(cpu: CpuSample | undefined, withNudge: boolean): string {
  return cpu ? `; ${describeCpuPerJob(cpu, withNudge)}` : '';
}

/** pg-limit: the claim + complete writes alone, straight through `PostgresStore`. */
export const pgLimitScenario: Scenario = {
  name: 'pg-limit',
  summary: `what PostgreSQL does for the same claim + complete writes without the engine: ${LOOPS} loops over PostgresStore.claim then complete, on N pending rows`,
  run: async (context) => {
    const { drainJobs, engineBatch, repeat } = context.options;
    // nudge's own drain of the same N, measured here, next to the loops, so the machine's load
    // is the same for both sides of the percentage.
    const drains = await nudgeDrains(context, { label: 'pg-limit: nudge drain' });
    const drainRate = median(drains.map((run) => run.jobsPerSecond));
    const drainCpu = drains.find((run) => run.jobsPerSecond === drainRate)?.cpu;
    const databaseUrl = await context.systemContext.postgres.createDatabase();
    const store = createStore(databaseUrl);
    await store.migrate();
    await store.close();
    const rows: ResultRow[] = [];
    for (const batch of [...new Set([engineBatch, 100, 1000])].sort((a, b) => a - b)) {
      const runs: LoopRun[] = [];
      for (let i = 0; i < repeat; i += 1) {
        runs.push(await claimCompleteLoops(databaseUrl, drainJobs, batch));
        context.log(
          `pg-limit batch ${batch} #${i + 1}: ${formatNumber(runs.at(-1)?.jobsPerSecond ?? Number.NaN)} jobs/s`,
        );
      }
      const rate = median(runs.map((run) => run.jobsPerSecond));
      rows.push({
        scenario: `pg-limit ${formatNumber(drainJobs)} rows`,
        system: `PostgresStore, ${LOOPS} loops`,
        metric: `claim + complete jobs/s, batch ${batch}${batch === engineBatch ? ' (the engine’s)' : ''}`,
        value: formatNumber(rate),
        ratio: `nudge drain ${formatNumber(drainRate)} = ${formatPercent(drainRate, rate)}`,
        lost: runs.reduce((sum, run) => sum + run.lost, 0),
        duplicate: runs.reduce((sum, run) => sum + run.duplicate, 0),
        runs: runs.length,
        note: `lost/dup count rows claimed${cpuNote(runs.find((run) => run.jobsPerSecond === rate)?.cpu, false)}`,
      });
    }
    if (drainCpu) {
      rows.push({
        scenario: `pg-limit ${formatNumber(drainJobs)} rows`,
        system: 'nudge (PostgreSQL) drain',
        metric: 'jobs/s, with where the CPU went',
        value: formatNumber(drainRate),
        ratio: '',
        lost: drains.reduce((sum, run) => sum + run.lost, 0),
        duplicate: drains.reduce((sum, run) => sum + run.duplicate, 0),
        runs: drains.length,
        note: describeCpuPerJob(drainCpu),
      });
    }
    return rows;
  },
};

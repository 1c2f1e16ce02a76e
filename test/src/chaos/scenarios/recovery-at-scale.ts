import { DIALECTS, rawQuery } from '@nudge/test-databases';
import type { ChaosSize, Scenario } from '../scenario.js';
import { delay, runInCluster } from '../run-scenario.js';

const SWEEP_MS = 500;
const JOBS: Record<ChaosSize, number> = { test: 3_000, ci: 10_000, full: 20_000 };

/**
 * Scenario 15: a dead instance left thousands of jobs RUNNING with expired leases; a new
 * instance's sweep (which pages through them) recovers them all within a few sweep intervals.
 */
export const recoveryAtScale: Scenario = {
  id: 15,
  title: 'recovery at scale: thousands of expired leases',
  dialects: DIALECTS,
  run: (dialect, size) =>
    runInCluster(
      {
        scenario: 15,
        title: recoveryAtScale.title,
        timers: { leaseMs: 5_000, sweepIntervalMs: SWEEP_MS, pollIntervalMs: 500 },
        env: { NUDGE_ASYNC_CONCURRENCY: '500' },
        drainTimeoutMs: 120_000,
      },
      dialect,
      async (cluster) => {
        const count = JOBS[size];
        const accepted = await cluster.enqueue(
          Array.from({ length: count }, () => ({ kind: 'work', payload: { ms: 0 } })),
        );
        // The dead instance: claims everything with a 1 ms lease and never comes back.
        for (let claimed = 0; claimed < count;) {
          const jobs = await cluster.store.claim({
            workerId: 'dead-instance',
            leaseMs: 1,
            groups: [{ kinds: ['work'], limit: 1_000 }],
          });
          if (jobs.length === 0) break;
          claimed += jobs.length;
        }
        await delay(10);
        await cluster.start('a');
        const started = performance.now();
        let recoveredMs = Number.POSITIVE_INFINITY;
        while (performance.now() - started < 60_000) {
          const [row] = await rawQuery<{ n: number }>(
            cluster.db,
            `SELECT count(*) AS n FROM nudge_jobs WHERE claimed_by = 'dead-instance' AND status = 'RUNNING'`,
          );
          if (Number(row?.n) === 0) {
            recoveredMs = performance.now() - started;
            break;
          }
          await delay(20);
        }
        const boundMs = 3 * SWEEP_MS;
        return {
          accepted,
          recovery: { worstMs: Math.round(recoveredMs), boundMs },
          checks: {
            'every expired lease recovered within 3 sweep intervals of the instance start':
              recoveredMs <= boundMs,
          },
        };
      },
    ),
};

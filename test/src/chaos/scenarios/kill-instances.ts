import { DIALECTS } from '@nudge/test-databases';
import type { ChaosSize, Scenario } from '../scenario.js';
import { delay, randomInt, runInCluster } from '../run-scenario.js';

const JOBS: Record<ChaosSize, number> = { test: 600, ci: 3_000, full: 10_000 };
/** Enqueue rate: about half of what 2 instances × 50 slots run at 275 ms a job. */
const PER_SECOND = 200;

/**
 * Scenario 1: two instances run jobs of 50–500 ms enqueued at a steady rate; a random one is
 * SIGKILLed three times, spread over the run, and restarted each time.
 */
export const killInstances: Scenario = {
  id: 1,
  title: 'kill -9 a random instance 3 times, restart it',
  dialects: DIALECTS,
  run: (dialect, size) =>
    runInCluster(
      {
        scenario: 1,
        title: killInstances.title,
        timers: { leaseMs: 2_000, sweepIntervalMs: 500, pollIntervalMs: 500 },
        env: { NUDGE_ASYNC_CONCURRENCY: '50' },
      },
      dialect,
      async (cluster) => {
        const names = ['a', 'b'];
        await Promise.all(names.map((name) => cluster.start(name)));
        const count = JOBS[size];
        const producing = cluster.enqueuePaced(
          Array.from({ length: count }, () => ({ kind: 'work', payload: { ms: randomInt(50, 500) } })),
          PER_SECOND,
        );
        const runMs = (count / PER_SECOND) * 1000;
        for (let kill = 0; kill < 3; kill += 1) {
          await delay(runMs / 4);
          const name = names[randomInt(0, 1)]!;
          await cluster.kill(name);
          await cluster.start(name);
        }
        return { accepted: await producing };
      },
    ),
};

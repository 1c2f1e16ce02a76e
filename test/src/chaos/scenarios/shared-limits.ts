import { DIALECTS, rawQuery } from '@nudge/test-databases';
import type { ChaosSize, Scenario } from '../scenario.js';
import { delay, randomInt, runInCluster } from '../run-scenario.js';
import { readAudit } from '../audit.js';
import { peakRunning, peakStarts } from '../limits-audit.js';

const JOBS: Record<ChaosSize, number> = { test: 1_500, ci: 4_000, full: 15_000 };
const QUEUE = 'bulk';
const CONCURRENCY = 200;
const RATE = { limit: 600, intervalMs: 1_000 };
/**
 * Async slots per instance, of different sizes, so claims that share the queue want different
 * amounts (a claim takes up to its instance's free slots): together 217 of the queue's jobs at once.
 */
const SLOTS: Record<string, number> = { a: 120, b: 90, c: 7 };

/**
 * Scenario 18: three instances drain a queue whose limits leave room to spare for much of the
 * run, so claims share the queue (on PostgreSQL: up to 4 side by side while each takes at most the
 * queue's share size, 200 / 16, and the room leaves that much for each of the others; here a claim
 * may take up to its instance's free slots, and the instances differ): a concurrency of 200
 * against 120 + 90 + 7 slots, and 600 starts a second of 100–500 ms jobs (about 180 running). The
 * limits bind as the instances ramp up and as each rate window fills. Twice during the run a
 * random instance is SIGKILLed (a claim in flight dies with its connection) and restarted. The
 * audit trigger must show at most 200 of the queue's jobs RUNNING at every step and at most 600
 * starts in any second by the database clock.
 */
export const sharedLimits: Scenario = {
  id: 18,
  title: 'limits with room to spare: claims share the queue while instances are killed',
  dialects: DIALECTS,
  run: (dialect, size) =>
    runInCluster(
      {
        scenario: 18,
        title: sharedLimits.title,
        timers: { leaseMs: 2_000, sweepIntervalMs: 500, pollIntervalMs: 500 },
        drainTimeoutMs: 120_000,
      },
      dialect,
      async (cluster) => {
        await cluster.store.setQueueLimits(QUEUE, { concurrency: CONCURRENCY, rateLimit: RATE });
        const names = Object.keys(SLOTS);
        const start = (name: string) => cluster.start(name, { NUDGE_ASYNC_CONCURRENCY: String(SLOTS[name]) });
        await Promise.all(names.map(start));
        const count = JOBS[size];
        const accepted = await cluster.enqueue(
          Array.from({ length: count }, () => ({
            kind: 'work',
            queue: QUEUE,
            payload: { ms: randomInt(100, 500) },
          })),
        );
        await cluster.nudgeAll();
        // The rate binds: the run takes about count / 600 seconds.
        const runMs = (count / RATE.limit) * 1_000;
        for (let kill = 0; kill < 2; kill += 1) {
          await delay(runMs / 3);
          const name = names[randomInt(0, 2)]!;
          await cluster.kill(name);
          await start(name);
        }
        await cluster.mustDrain(runMs + 60_000);
        const rows = await rawQuery<{ id: number | string }>(
          cluster.db,
          `SELECT id FROM nudge_jobs WHERE queue = '${QUEUE}'`,
        );
        const ids = new Set(rows.map((row) => Number(row.id)));
        const audit = await readAudit(cluster.db);
        const starts = audit
          .filter((row) => row.newStatus === 'RUNNING' && ids.has(row.jobId))
          .map((row) => row.at);
        const peakQueue = peakRunning(audit, (id) => (ids.has(id) ? QUEUE : undefined));
        const peakRate = peakStarts(starts, RATE.intervalMs);
        return {
          accepted,
          // A swept job waits its turn within the limits, so its re-claim is not held to the lease bound.
          recoveryBound: false,
          checks: {
            [`at most ${CONCURRENCY} running in the queue at every step`]: peakQueue <= CONCURRENCY,
            [`at most ${RATE.limit} starts in any ${RATE.intervalMs} ms`]: peakRate <= RATE.limit,
            'a limit was reached': peakQueue === CONCURRENCY || peakRate === RATE.limit,
          },
          notes: {
            'peak running': peakQueue,
            'peak starts per window': peakRate,
            starts: starts.length,
          },
        };
      },
    ),
};

import { DIALECTS, rawQuery } from '@nudge/test-databases';
import type { ChaosSize, Scenario } from '../scenario.js';
import { delay, randomInt, runInCluster } from '../run-scenario.js';
import { readAudit } from '../audit.js';
import { peakRunning, peakStarts } from '../limits-audit.js';
import {
  enqueueChains,
  enqueueDeduped,
  fixAndRetryFlows,
  flowChecks,
  headsFailed,
  type FlowSizes,
} from '../flows.js';

const JOBS: Record<ChaosSize, number> = { test: 1_500, ci: 4_000, full: 15_000 };
const QUEUE = 'bulk';
const CONCURRENCY = 200;
const RATE = { limit: 600, intervalMs: 1_000 };
/**
 * Async slots per instance, of different sizes, so claims that share the queue want different
 * amounts (a claim takes up to its instance's free slots): together 217 of the queue's jobs at once.
 */
/** The flows beside the queue (see flows.ts). */
const FLOWS: Record<ChaosSize, FlowSizes> = {
  test: { chains: 4, chainLength: 8, keys: 3, perKey: 6 },
  ci: { chains: 8, chainLength: 20, keys: 5, perKey: 10 },
  full: { chains: 20, chainLength: 50, keys: 10, perKey: 20 },
};
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
 *
 * Beside it, in a queue without limits, flows run under the same kills: dependency chains (every
 * other one with a head that fails until the scenario fixes its cause and retries the failed flow,
 * head and cancelled dependents, by bulk retry between the kills), and debounced and throttled
 * jobs enqueued through the run. No chain member may start before its dependency succeeded, and
 * every flow job must end SUCCEEDED: none stuck.
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
        const flows = await enqueueChains(cluster, FLOWS[size]);
        await cluster.nudgeAll();
        // The rate binds: the run takes about count / 600 seconds.
        const runMs = (count / RATE.limit) * 1_000;
        const deduping = enqueueDeduped(cluster, FLOWS[size], runMs / 2);
        let retried = 0;
        for (let kill = 0; kill < 2; kill += 1) {
          await delay(runMs / 3);
          const name = names[randomInt(0, 2)]!;
          await cluster.kill(name);
          await start(name);
          // Between the kills: the failed flows are fixed and retried while instances die.
          if (kill === 0) {
            await headsFailed(cluster, 30_000);
            retried = await fixAndRetryFlows(cluster, flows);
          }
        }
        const deduped = await deduping;
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
        const flowFindings = await flowChecks(cluster, flows, deduped, audit);
        return {
          accepted: [...accepted, ...flows.accepted, ...deduped],
          // A swept job waits its turn within the limits, so its re-claim is not held to the lease bound.
          recoveryBound: false,
          checks: {
            [`at most ${CONCURRENCY} running in the queue at every step`]: peakQueue <= CONCURRENCY,
            [`at most ${RATE.limit} starts in any ${RATE.intervalMs} ms`]: peakRate <= RATE.limit,
            'a limit was reached': peakQueue === CONCURRENCY || peakRate === RATE.limit,
            ...flowFindings.checks,
          },
          notes: {
            'peak running': peakQueue,
            'peak starts per window': peakRate,
            starts: starts.length,
            'flow jobs retried': retried,
            ...flowFindings.notes,
          },
        };
      },
    ),
};

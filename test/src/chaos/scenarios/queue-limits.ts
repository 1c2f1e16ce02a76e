import { DIALECTS, rawQuery } from '@nudge/test-databases';
import type { ChaosSize, Scenario } from '../scenario.js';
import { delay, randomInt, runInCluster } from '../run-scenario.js';
import { readAudit } from '../audit.js';
import { peakRunning, peakStarts } from '../limits-audit.js';
import { readLedger } from '../ledger.js';
import type { ChaosCluster } from '../cluster.js';

const JOBS: Record<ChaosSize, number> = { test: 150, ci: 400, full: 1_500 };
const QUEUE = 'partner';
const CONCURRENCY = 3;
const RATE = { limit: 25, intervalMs: 1_000 };
const KEYS = 8;
const LEASE_MS = 2_000;

/** How many of the queue's jobs have finished. */
async function finishedJobs(cluster: ChaosCluster): Promise<number> {
  const [row] = await rawQuery<{ n: number | string }>(
    cluster.db,
    `SELECT count(*) AS n FROM nudge_jobs WHERE queue = '${QUEUE}' AND finished_at IS NOT NULL`,
  );
  return Number(row?.n ?? 0);
}

/**
 * Whether instance `name` has a job of the database RUNNING and every such job is running in its
 * handler (the ledger shows the attempt started and not ended).
 */
async function holdsOnlyStartedJobs(cluster: ChaosCluster, name: string): Promise<boolean> {
  const pid = Number(cluster.instances.get(name)?.pid);
  const held = await rawQuery<{ id: number | string }>(
    cluster.db,
    `SELECT id FROM nudge_jobs WHERE status = 'RUNNING'
        AND claimed_by IN (SELECT id FROM nudge_instances WHERE pid = ${pid})`,
  );
  const running = readLedger(cluster.ledgerDir)
    .filter((attempt) => attempt.pid === pid && attempt.endedAt === undefined)
    .map((attempt) => attempt.id);
  const ids = held.map((row) => Number(row.id));
  return ids.length > 0 && ids.every((id) => running.includes(id));
}

/**
 * Scenario 17: three instances drain a queue with cluster-wide limits (concurrency 3, one job per
 * concurrency key, 25 starts a second); during the run a is SIGKILLed and restarted, the first
 * instance found running one of the queue's jobs is SIGSTOPped for three leases and resumed, and
 * b or c, whichever was not stopped, is SIGKILLed and restarted. The audit trigger must show at most 3 of the queue's
 * jobs RUNNING at every step and at most 1 per key, and at most 25 starts in any second by the
 * database clock the claims count by; a lease that expired frees its slot once swept, so a
 * recovered job counts once.
 */
export const queueLimits: Scenario = {
  id: 17,
  title: 'cluster-wide limits hold while instances are killed and stopped',
  dialects: DIALECTS,
  run: (dialect, size) =>
    runInCluster(
      {
        scenario: 17,
        title: queueLimits.title,
        timers: { leaseMs: LEASE_MS, sweepIntervalMs: 500, pollIntervalMs: 500 },
        env: { NUDGE_ASYNC_CONCURRENCY: '20' },
        drainTimeoutMs: 120_000,
      },
      dialect,
      async (cluster) => {
        await cluster.store.setQueueLimits(QUEUE, {
          concurrency: CONCURRENCY,
          keyConcurrency: 1,
          rateLimit: RATE,
        });
        const names = ['a', 'b', 'c'];
        await Promise.all(names.map((name) => cluster.start(name)));
        const count = JOBS[size];
        const accepted = await cluster.enqueue(
          Array.from({ length: count }, (_, i) => ({
            kind: 'work',
            queue: QUEUE,
            concurrencyKey: `customer-${i % KEYS}`,
            payload: { ms: randomInt(30, 150) },
          })),
        );
        await cluster.nudgeAll();
        // The rate binds: the run takes about count / 25 seconds.
        const runMs = (count / RATE.limit) * 1_000;
        await delay(runMs / 4);
        await cluster.kill('a');
        // a restarts beside the search below: on a loaded host a restart can outlast the run, and
        // the stop would then find no job of the queue left.
        let aUp = false;
        // Its failure is held until awaited below, never an unhandled rejection meanwhile.
        const restartA = cluster.start('a').then(
          () => {
            aUp = true;
            return undefined;
          },
          (error: unknown) => ({ error }),
        );
        // Until a quarter of the run more has passed, or half the jobs have finished.
        for (let waited = 0; waited < runMs / 4; waited += 50) {
          if ((await finishedJobs(cluster)) >= count / 2) break;
          await delay(50);
        }
        // Stop the first instance found with one of the queue's jobs running in its handler and no
        // job it claimed waiting to start: the duplicates check explains a re-run by a fault after
        // the earlier attempt's start, and a job claimed but not started before the stop would
        // start after it. (An instance whose job ends claims again at once, so one instance may
        // hold every slot of the queue for the whole run.)
        // The search goes on while jobs are left (a loaded CI host once spent a fixed 10 s window
        // without a match, and the stop then caught nothing).
        const order = (): string[] => (aUp ? ['b', 'c', 'a'] : ['b', 'c']);
        let stopped = 'b';
        let found: string | undefined;
        const searchStarted = Date.now();
        while (found === undefined && (await finishedJobs(cluster)) < count) {
          const names = order();
          const holding = await Promise.all(names.map((name) => holdsOnlyStartedJobs(cluster, name)));
          found = names.find((_, i) => holding[i]);
          if (found === undefined) await delay(5);
        }
        const searchMs = Date.now() - searchStarted;
        if (found !== undefined) stopped = found;
        cluster.pause(stopped);
        await delay(3 * LEASE_MS);
        cluster.resume(stopped);
        const restart = await restartA;
        if (restart !== undefined) throw restart.error;
        await delay(runMs / 8);
        const killed = stopped === 'c' ? 'b' : 'c';
        await cluster.kill(killed);
        await cluster.start(killed);
        await cluster.mustDrain(runMs + 60_000);
        const rows = await rawQuery<{ id: number | string; concurrency_key: string }>(
          cluster.db,
          `SELECT id, concurrency_key FROM nudge_jobs WHERE queue = '${QUEUE}'`,
        );
        const keyOf = new Map(rows.map((row) => [Number(row.id), row.concurrency_key]));
        const audit = await readAudit(cluster.db);
        const starts = audit
          .filter((row) => row.newStatus === 'RUNNING' && keyOf.has(row.jobId))
          .map((row) => row.at);
        const peakQueue = peakRunning(audit, (id) => (keyOf.has(id) ? QUEUE : undefined));
        const peakKey = peakRunning(audit, (id) => keyOf.get(id));
        const peakRate = peakStarts(starts, RATE.intervalMs);
        // Swept back to wait (at once, or after the retry backoff): the work kind never fails.
        const requeued = audit.filter(
          (row) =>
            keyOf.has(row.jobId) &&
            row.oldStatus === 'RUNNING' &&
            ['PENDING', 'SCHEDULED'].includes(row.newStatus),
        ).length;
        return {
          accepted,
          // A swept job waits its turn within the limits, so its re-claim is not held to the lease bound.
          recoveryBound: false,
          checks: {
            [`at most ${CONCURRENCY} running in the queue at every step`]: peakQueue <= CONCURRENCY,
            'at most 1 running per key at every step': peakKey <= 1,
            [`at most ${RATE.limit} starts in any ${RATE.intervalMs} ms`]: peakRate <= RATE.limit,
            'the limits were reached': peakQueue === CONCURRENCY && peakRate === RATE.limit,
            "the stopped instance's jobs were swept and run again within the limits": requeued > 0,
          },
          notes: {
            'peak running': peakQueue,
            'peak per key': peakKey,
            'peak starts per window': peakRate,
            requeued,
            starts: starts.length,
            stopped: found === undefined ? 'none found' : stopped,
            'search ms': searchMs,
          },
        };
      },
    ),
};

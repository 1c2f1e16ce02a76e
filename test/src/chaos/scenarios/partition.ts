import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rawQuery } from '@nudge/test-databases';
import type { ChaosCluster } from '../cluster.js';
import { LoggedJobs } from '../instance-log.js';
import { ledgerNow, readLedger } from '../ledger.js';
import { startProxied } from '../proxied-instance.js';
import type { ChaosSize, Scenario } from '../scenario.js';
import { delay, runInCluster } from '../run-scenario.js';

const LEASE_MS = 1_000;
/** Jobs the partitioned instance holds, and jobs enqueued during the partition. */
const JOBS: Record<ChaosSize, number> = { test: 10, ci: 50, full: 200 };
/**
 * Held jobs end this long after the cut (a gate file opens then, whatever the machine's load took
 * before the cut), inside the partition, so their completions are late writes.
 */
const HELD_AFTER_CUT_MS = 1.5 * LEASE_MS;
const PARTITION_MS = 3 * LEASE_MS;
/** What the instance logs for each outcome of a lease it had lost (`outcome-writer.ts`). */
const DISCARDED = 'lease lost: outcome discarded';

/** Enqueues `count` jobs of `payload` through `url`'s `POST /jobs`, 20 at a time; @returns the job views. */
async function post(url: string, count: number, payload: object) {
  const jobs: { id: number; status: string }[] = [];
  for (let i = 0; i < count; i += 20) {
    const batch = Array.from({ length: Math.min(20, count - i) }, async () => {
      const response = await fetch(`${url}/jobs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ kind: 'work', payload }),
      });
      if (response.status !== 201) throw new Error(`POST /jobs answered ${response.status}`);
      return (await response.json()) as { id: number; status: string };
    });
    jobs.push(...(await Promise.all(batch)));
  }
  return jobs;
}

/** The attempts (`id:version`) the ledger shows process `pid` started. */
function attemptsOf(cluster: ChaosCluster, pid: number): string[] {
  return readLedger(cluster.ledgerDir)
    .filter((e) => e.pid === pid)
    .map((e) => `${e.id}:${e.version}`);
}

/** Waits until `url`'s async slots are free: its threads start after it listens. */
async function slotsFree(url: string): Promise<void> {
  for (let waited = 0; waited < 20_000; waited += 50) {
    const metrics = await (await fetch(`${url}/metrics`)).text();
    if (/^nudge_slots_free\{execution="async"\} [1-9]/m.test(metrics)) return;
    await delay(50);
  }
  throw new Error('the instance has no free slot');
}

/**
 * Scenario 9: instance a (through a proxy), alone, takes running jobs enqueued through its own
 * API; then instance b (direct) starts, and a is cut off from the database (the proxy
 * blackholes) for three leases while b keeps going and jobs keep arriving. Checks that a starts
 * nothing while cut off, that b re-runs each of a's jobs at the next claim (a's version + 2: the
 * sweep's requeue bumps it once, b's claim once more) and its result is the one stored, and that
 * a's late writes (its completions, once the network is back) are fenced out: a logs each as
 * discarded, and no job has a second outcome.
 */
export const partition: Scenario = {
  id: 9,
  title: 'network partition of a holder for 3 leases',
  dialects: ['postgres'],
  run: (dialect, size) =>
    runInCluster(
      {
        scenario: 9,
        title: partition.title,
        timers: { leaseMs: LEASE_MS, sweepIntervalMs: 250, pollIntervalMs: 250 },
        env: { NUDGE_ASYNC_CONCURRENCY: '500' },
      },
      dialect,
      async (cluster) => {
        const count = JOBS[size];
        // Small timeouts: a's calls through the blackhole fail fast and retry after it.
        const { instance: a, proxy } = await startProxied(cluster, 'a', {
          LOG_LEVEL: 'warn',
          NUDGE_DB_TIMEOUT_MS: '500',
          NUDGE_DB_CONNECT_TIMEOUT_MS: '500',
        });
        const discarded = new LoggedJobs(a, DISCARDED);
        try {
          // a is alone while the held jobs arrive, so it runs every one of them. Through its API
          // with its slots free, most are inserted already claimed; one that meets a claim round
          // holding the slots is inserted PENDING, and then the later ones queue behind it.
          await slotsFree(a.server.url);
          const firstPostAt = ledgerNow();
          const gate = join(cluster.ledgerDir, 'held-jobs-end');
          const posted = await post(a.server.url, count, { untilFile: gate });
          const held = posted.map((job) => job.id);
          const startedOnA = () =>
            readLedger(cluster.ledgerDir).filter((e) => e.pid === a.pid && held.includes(e.id));
          for (let waited = 0; startedOnA().length < count && waited < 10_000; waited += 20) await delay(20);
          const b = await cluster.start('b');
          const heldAtPartition = startedOnA().filter((e) => e.endedAt === undefined);

          cluster.partitioned('a');
          const cutAt = ledgerNow();
          // What a started, read just before the cut and just before the heal: a set difference
          // needs no clock comparison across processes.
          const beforeCut = new Set(attemptsOf(cluster, a.pid));
          await proxy.setMode('blackhole');
          const gateOpened = delay(HELD_AFTER_CUT_MS).then(() => writeFileSync(gate, ''));
          // Jobs to claim during the partition: a must not start any of them.
          const during = await cluster.enqueue(
            Array.from({ length: count }, () => ({ kind: 'work', payload: { ms: 50 } })),
          );
          await cluster.nudgeAll();
          await delay(PARTITION_MS);
          await gateOpened;
          const startedWhileCut = attemptsOf(cluster, a.pid).filter((key) => !beforeCut.has(key));
          await proxy.setMode('forward');

          await cluster.mustDrain(30_000);
          // a's late outcomes reach the database after its retry backoff; wait until it logged each.
          for (
            let waited = 0;
            held.some((id) => !discarded.read().has(id)) && waited < 15_000;
            waited += 100
          ) {
            await delay(100);
          }
          const ledger = readLedger(cluster.ledgerDir);
          const versionOnA = new Map(
            ledger.filter((e) => e.pid === a.pid && held.includes(e.id)).map((e) => [e.id, e.version]),
          );
          const rows = await rawQuery<{ id: number; version: number; result: { pid?: number } | null }>(
            cluster.db,
            `SELECT id, version, result FROM nudge_jobs WHERE id IN (${held.join(',')})`,
          );
          // The sweep's requeue bumps the version (fencing a out), and b's claim bumps it again.
          const rerunByB = rows.filter((row) => {
            const next = (versionOnA.get(Number(row.id)) ?? Number.NaN) + 2;
            return (
              Number(row.version) === next &&
              row.result?.pid === b.pid &&
              ledger.some((e) => e.id === Number(row.id) && e.pid === b.pid && e.version === next)
            );
          });
          const lateCompletions = ledger.filter(
            (e) => e.pid === a.pid && held.includes(e.id) && e.ok === true && (e.endedAt ?? 0) > cutAt,
          );
          return {
            accepted: [...held, ...during],
            checks: {
              'the partitioned instance was running every held job': heldAtPartition.length === count,
              'the partitioned instance started no job while cut off': startedWhileCut.length === 0,
              "the other instance re-ran every held job at the claim after the sweep's, and its result stands":
                rerunByB.length === count,
              "the partitioned instance's late outcomes were all discarded": held.every((id) =>
                discarded.ids.has(id),
              ),
              'the partitioned instance never exited': !a.exited,
            },
            notes: {
              'held jobs inserted already claimed': posted.filter((job) => job.status === 'RUNNING').length,
              'ms from the first post to the cut': Math.round(cutAt - firstPostAt),
              'held jobs': heldAtPartition.length,
              'late completions': lateCompletions.length,
              'jobs enqueued during the partition run by b': ledger.filter(
                (e) => e.pid === b.pid && during.includes(e.id),
              ).length,
            },
          };
        } finally {
          discarded.stop();
          await proxy.close();
        }
      },
    ),
};

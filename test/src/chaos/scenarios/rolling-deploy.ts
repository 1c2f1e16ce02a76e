import { fileURLToPath } from 'node:url';
import type { Job, JsonValue } from '@nudge/core';
import type { EnqueueInput } from '@nudge/store';
import { DIALECTS } from '@nudge/test-databases';
import type { ChaosCluster } from '../cluster.js';
import { readLedger } from '../ledger.js';
import type { ChaosSize, Scenario } from '../scenario.js';
import { delay, randomInt, runInCluster } from '../run-scenario.js';

const OLD_HANDLERS = fileURLToPath(new URL('../old-handlers.js', import.meta.url));
const NEW_HANDLERS = fileURLToPath(new URL('../new-handlers.js', import.meta.url));
/** Jobs enqueued per phase: old alone, during the deploy, new alone. */
const PER_PHASE: Record<ChaosSize, number> = { test: 200, ci: 600, full: 2_000 };
const PER_SECOND = 100;
const NEW_KINDS = new Set(['workV2', 'report']);

/** `count` jobs, a third of each kind. */
function mixed(count: number): EnqueueInput[] {
  return Array.from({ length: count }, (_, i) => {
    const kind = ['work', 'workV2', 'report'][i % 3]!;
    const payload: JsonValue = kind === 'report' ? { n: 100_000 } : { ms: randomInt(10, 100) };
    return { kind, payload };
  });
}

/** Every job of `ids`, read through the store. */
async function jobsOf(cluster: ChaosCluster, ids: readonly number[]): Promise<Job[]> {
  const jobs: Job[] = [];
  for (let i = 0; i < ids.length; i += 500) {
    jobs.push(...(await cluster.store.listJobs({ ids: ids.slice(i, i + 500), limit: 500 })));
  }
  return jobs;
}

const resultPid = (job: Job): number | undefined => (job.result as { pid?: number } | null)?.pid;

/**
 * Scenario 14: a rolling deploy. The old version (handlers: `work` only) runs alone while jobs of
 * `work` and of two kinds only the new version has (`workV2` async, `report` cpu) are enqueued:
 * the old instance claims only the kinds it has handlers for, so the new kinds wait, PENDING.
 * Then the new version starts and the old one gets SIGTERM, while enqueuing goes on: every job
 * ends SUCCEEDED, none fails for a missing handler, no new-kind job ever ran on the old
 * instance, and the old instance exits 0.
 */
export const rollingDeploy: Scenario = {
  id: 14,
  title: 'rolling deploy: new kinds enqueued before the new version runs',
  dialects: DIALECTS,
  run: (dialect, size) =>
    runInCluster(
      {
        scenario: 14,
        title: rollingDeploy.title,
        timers: { leaseMs: 2_000, sweepIntervalMs: 500, pollIntervalMs: 250 },
        env: { NUDGE_ASYNC_CONCURRENCY: '50', NUDGE_THREADS: '2', NUDGE_SHUTDOWN_GRACE_MS: '5000' },
      },
      dialect,
      async (cluster) => {
        const old = await cluster.start('old', { NUDGE_HANDLERS: OLD_HANDLERS });
        const alone = await cluster.enqueuePaced(mixed(PER_PHASE[size]), PER_SECOND);
        // Give the old instance a few polls to claim whatever it would claim.
        await delay(1_000);
        const beforeDeploy = await jobsOf(cluster, alone);

        const [during, oldExit] = await Promise.all([
          cluster.enqueuePaced(mixed(PER_PHASE[size]), PER_SECOND),
          (async () => {
            await cluster.start('new', { NUDGE_HANDLERS: NEW_HANDLERS });
            await delay(500);
            return cluster.terminate('old');
          })(),
        ]);
        const after = await cluster.enqueuePaced(mixed(PER_PHASE[size]), PER_SECOND);
        await cluster.mustDrain(30_000);

        const all = [...alone, ...during, ...after];
        const jobs = await jobsOf(cluster, all);
        const ledger = readLedger(cluster.ledgerDir);
        const kindOf = new Map(jobs.map((job) => [job.id, job.kind]));
        const oldRan = ledger.filter((e) => e.pid === old.pid);
        const waiting = beforeDeploy.filter((job) => NEW_KINDS.has(job.kind));
        return {
          accepted: all,
          checks: {
            'while old ran alone, every new-kind job waited PENDING, unclaimed': waiting.every(
              (job) => job.status === 'PENDING' && job.attempts === 0,
            ),
            'the old instance ran work jobs': oldRan.length > 0,
            'the old instance exited 0 on SIGTERM': oldExit === 0,
            'every job SUCCEEDED': jobs.every((job) => job.status === 'SUCCEEDED'),
            'no job failed for a missing handler': jobs.every((job) =>
              job.errors.every((e) => !/unknown job kind|no handler/.test(e.error)),
            ),
            'no new-kind job started on the old instance (ledger)': oldRan.every(
              (e) => !NEW_KINDS.has(kindOf.get(e.id) ?? ''),
            ),
            'no new-kind job succeeded on the old instance (result)': jobs.every(
              (job) => !NEW_KINDS.has(job.kind) || resultPid(job) !== old.pid,
            ),
          },
          notes: {
            'new-kind jobs waiting at the deploy': waiting.length,
            'jobs run by the old instance': oldRan.length,
          },
        };
      },
    ),
};

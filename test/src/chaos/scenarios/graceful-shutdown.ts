import { DIALECTS, rawQuery } from '@nudge/test-databases';
import type { ChaosCluster, Instance } from '../cluster.js';
import type { Fault } from '../checks.js';
import { ledgerNow, readLedger } from '../ledger.js';
import type { ChaosSize, Scenario } from '../scenario.js';
import { delay, runInCluster } from '../run-scenario.js';

const GRACE_MS = 1_500;
/** Jobs in flight at the SIGTERM (half short, half long), per phase. */
const IN_FLIGHT: Record<ChaosSize, number> = { test: 200, ci: 200, full: 200 };
const SHORT_MS = 400;
const LONG_MS = 60_000;

/** Enqueues `count` jobs, half short and half long, and waits until `instance` runs them all. */
async function fillInstance(cluster: ChaosCluster, instance: Instance, count: number) {
  const short = await cluster.enqueue(
    Array.from({ length: count / 2 }, () => ({ kind: 'work', payload: { ms: SHORT_MS } })),
  );
  const long = await cluster.enqueue(
    Array.from({ length: count / 2 }, () => ({ kind: 'work', payload: { ms: LONG_MS } })),
  );
  await cluster.nudgeAll();
  const all = new Set([...short, ...long]);
  const running = (): number =>
    readLedger(cluster.ledgerDir).filter((e) => e.pid === instance.pid && all.has(e.id)).length;
  for (let waited = 0; running() < count; waited += 20) {
    if (waited > 20_000) throw new Error(`only ${running()} of ${count} jobs started`);
    await delay(20);
  }
  return { short, long };
}

async function statuses(cluster: ChaosCluster, ids: readonly number[]) {
  return rawQuery<{ status: string; attempts: number }>(
    cluster.db,
    `SELECT status, attempts FROM nudge_jobs WHERE id IN (${ids.join(',')})`,
  );
}

/**
 * Scenario 12: SIGTERM with 200 jobs in flight: the short ones finish within the grace, the long
 * ones are released uncharged at its deadline, and the process exits 0; then again with a second
 * SIGTERM during the grace (the process exits at once): the jobs it held are recovered.
 */
export const gracefulShutdown: Scenario = {
  id: 12,
  title: 'SIGTERM with 200 jobs in flight, and a second SIGTERM',
  dialects: DIALECTS,
  run: (dialect, size) =>
    runInCluster(
      {
        scenario: 12,
        title: gracefulShutdown.title,
        timers: { leaseMs: 2_000, sweepIntervalMs: 500, pollIntervalMs: 500 },
        env: {
          NUDGE_ASYNC_CONCURRENCY: '200',
          NUDGE_SHUTDOWN_GRACE_MS: String(GRACE_MS),
          NUDGE_ABORT_GRACE_MS: '500',
        },
      },
      dialect,
      async (cluster) => {
        const count = IN_FLIGHT[size];
        const a = await cluster.start('a');
        const first = await fillInstance(cluster, a, count);
        const exitCode = await cluster.terminate('a');
        const shortAfter = await statuses(cluster, first.short);
        const longAfter = await statuses(cluster, first.long);

        const a2 = await cluster.start('a2');
        const second = await fillInstance(cluster, a2, count);
        const stopping = cluster.terminate('a2');
        await delay(300);
        // The second signal exits at once, as SIGKILL would: what a2 held is the sweep's to recover.
        const kill: Fault = { pid: a2.pid, at: ledgerNow(), kind: 'kill' };
        cluster.faults.push(kill);
        a2.server.child.kill('SIGTERM');
        const secondExitCode = await stopping;
        kill.exitedAt = ledgerNow();

        // Let another instance finish everything; the long jobs need not take a minute again.
        await rawQuery(cluster.db, `UPDATE nudge_jobs SET payload = ? WHERE status <> 'SUCCEEDED'`, [
          '{"ms":10}',
        ]);
        await cluster.start('b');
        return {
          accepted: [...first.short, ...first.long, ...second.short, ...second.long],
          checks: {
            'the first SIGTERM exits 0': exitCode === 0,
            'short jobs finished within the grace': shortAfter.every((r) => r.status === 'SUCCEEDED'),
            'long jobs were released uncharged': longAfter.every(
              (r) => r.status === 'PENDING' && Number(r.attempts) === 0,
            ),
          },
          notes: { 'exit code after a second SIGTERM': secondExitCode },
        };
      },
    ),
};

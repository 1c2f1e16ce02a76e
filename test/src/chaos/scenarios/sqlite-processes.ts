import { join } from 'node:path';
import { rawQuery } from '@nudge/test-databases';
import type { ChaosCluster } from '../cluster.js';
import { ledgerNow } from '../ledger.js';
import { readAccepted, startProducer, type Producer } from '../producers.js';
import type { ChaosSize, Scenario } from '../scenario.js';
import { delay, runInCluster } from '../run-scenario.js';

/** Jobs each producer writes, and jobs per transaction. */
const JOBS: Record<ChaosSize, number> = { test: 3_000, ci: 10_000, full: 50_000 };
const PER_TXN = 50;
/**
 * How long each job works, in ms. At the larger sizes the producers outrun the services, so a
 * service always holds jobs when it is killed; at the test size they keep up with no-op jobs.
 */
const JOB_MS: Record<ChaosSize, number> = { test: 5, ci: 0, full: 0 };

/**
 * SIGKILLs instance `name` and measures, in ms from the kill, until every job it held is no
 * longer `RUNNING` at the version it held (the sweep requeued it): claimable again. Under the
 * producers' backlog a requeued job is then claimed in `(priority, run_at, id)` order, behind
 * older due jobs, so the time until it starts again measures the backlog, not the recovery.
 * @returns the time, and how many jobs the killed instance held
 */
async function killAndTimeRequeue(
  cluster: ChaosCluster,
  name: string,
): Promise<{ ms: number; held: number }> {
  const pid = cluster.instances.get(name)?.pid;
  const owned = `status = 'RUNNING' AND claimed_by LIKE '%:${pid}:%'`;
  // Killed while it holds jobs, so that there is a recovery to time.
  for (let waited = 0; waited < 10_000; waited += 5) {
    const [running] = await rawQuery<{ n: number }>(
      cluster.db,
      `SELECT count(*) AS n FROM nudge_jobs WHERE ${owned}`,
    );
    if (Number(running?.n) > 0) break;
    await delay(5);
  }
  await cluster.kill(name);
  const killedAt = ledgerNow();
  const held = await rawQuery<{ id: number; version: number }>(
    cluster.db,
    `SELECT id, version FROM nudge_jobs WHERE ${owned}`,
  );
  if (held.length === 0) return { ms: 0, held: 0 };
  for (;;) {
    const [left] = await rawQuery<{ n: number }>(
      cluster.db,
      `SELECT count(*) AS n FROM nudge_jobs WHERE ${owned} AND id IN (${held.map((row) => row.id).join(',')})`,
    );
    if (Number(left?.n) === 0) return { ms: ledgerNow() - killedAt, held: held.length };
    await delay(20);
  }
}

/**
 * Scenario 2 (SQLite): two service processes and three producer processes on one file at full
 * speed; during the insert bursts a producer and a service process are SIGKILLed (each replaced).
 * The file passes `PRAGMA integrity_check`, every recorded enqueue has its row (a killed producer
 * may have committed one transaction it did not get to record: at most `PER_TXN` rows more), and
 * no producer saw `SQLITE_BUSY`.
 */
export const sqliteProcesses: Scenario = {
  id: 2,
  title: 'SQLite: 2 services + 3 producers on one file, kill -9 during inserts',
  dialects: ['sqlite'],
  run: (dialect, size) =>
    runInCluster(
      {
        scenario: 2,
        title: sqliteProcesses.title,
        // Producers at full speed keep SQLite's one write lock busy: a heartbeat can wait seconds for
        // it, so the lease is longer here than in the other scenarios (the default is longer still).
        timers: { leaseMs: 10_000, sweepIntervalMs: 500, pollIntervalMs: 250 },
        env: { NUDGE_ASYNC_CONCURRENCY: '100' },
        drainTimeoutMs: 180_000,
      },
      dialect,
      async (cluster) => {
        await Promise.all([cluster.start('a'), cluster.start('b')]);
        const file = join(cluster.ledgerDir, 'accepted.txt');
        const count = JOBS[size];
        const produce = (): Producer =>
          startProducer([cluster.db.url, String(count), String(PER_TXN), file, `--job-ms=${JOB_MS[size]}`]);
        const producers = [produce(), produce(), produce()];
        // Each kill lands mid-burst: once the producers recorded that much of their work.
        const burst = async (share: number): Promise<void> => {
          while (readAccepted(file).ids.length < share * 3 * count) await delay(5);
        };
        await burst(0.15);
        producers[0]!.child.kill('SIGKILL');
        producers.push(produce());
        await burst(0.3);
        const requeue = await killAndTimeRequeue(cluster, 'a');
        await cluster.start('a');
        await burst(0.45);
        producers[1]!.child.kill('SIGKILL');
        producers.push(produce());
        await Promise.all(producers.map((p) => p.exited));
        const { ids, errors } = readAccepted(file);
        await cluster.mustDrain(120_000);
        const [integrity] = await rawQuery<{ integrity_check: string }>(cluster.db, 'PRAGMA integrity_check');
        const [rows] = await rawQuery<{ n: number }>(cluster.db, 'SELECT count(*) AS n FROM nudge_jobs');
        const unrecorded = Number(rows?.n) - ids.length;
        return {
          accepted: ids,
          recovery: { worstMs: requeue.ms, boundMs: cluster.recoveryBoundMs },
          checks: {
            'integrity_check is ok': integrity?.integrity_check === 'ok',
            'rows = recorded enqueues (+ at most one unrecorded transaction per killed producer)':
              unrecorded >= 0 && unrecorded <= 2 * PER_TXN,
            'no SQLITE_BUSY reached a producer': !errors.some((e) => e.includes('SQLITE_BUSY')),
            'no enqueue failed': errors.length === 0,
            'the killed service held jobs': requeue.held > 0,
          },
          notes: {
            'committed but unrecorded by a killed producer': unrecorded,
            'jobs the killed service held': requeue.held,
          },
        };
      },
    ),
};

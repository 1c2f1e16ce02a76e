import { rawQuery } from '@nudge/test-databases';
import type { ChaosCluster, Instance } from '../cluster.js';
import { startRestartablePostgres } from '../restartable-postgres.js';
import { ledgerNow, readLedger } from '../ledger.js';
import { startProxied } from '../proxied-instance.js';
import type { ChaosSize, Scenario } from '../scenario.js';
import { delay, randomInt, runInCluster } from '../run-scenario.js';

/** How long backends are terminated (every 2 s) and the proxy blackholed, per size, in ms. */
const TERMINATING_MS: Record<ChaosSize, number> = { test: 6_000, ci: 10_000, full: 30_000 };
const BLACKHOLE_MS: Record<ChaosSize, number> = { test: 4_000, ci: 8_000, full: 20_000 };
/** How long the restarted server keeps its port closed between its shutdown and its start, in ms. */
const RESTART_PAUSE_MS = 2_000;
/** How long the proxy resets every connection of the instance (TCP RST), in ms. */
const RESET_MS = 2_000;
/** The instance's `NUDGE_DB_TIMEOUT_MS`: a call through the blackhole fails within it plus 1 s. */
const DB_TIMEOUT_MS = 500;
/** Longest a `/readyz` may take before it counts as hung, in ms. */
const READYZ_TIMEOUT_MS = 5_000;
/** Within this many ms of each recovery, /readyz is ready and a new job starts. */
const RESUME_WITHIN_MS = 5_000;
const PER_SECOND = 20;

/** One `/readyz` answer: when it was asked and answered (ms since the epoch), and its status (`0`: no answer). */
interface Probe {
  readonly sentAt: number;
  readonly doneAt: number;
  readonly status: number;
}

/** Asks `instance`'s `/readyz` every 250 ms until `stop()`; @returns the answers so far. */
function probeReadiness(instance: Instance) {
  const probes: Probe[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const sentAt = ledgerNow();
      const status = await fetch(`${instance.server.url}/readyz`, {
        signal: AbortSignal.timeout(READYZ_TIMEOUT_MS),
      }).then(
        (response) => response.status,
        () => 0,
      );
      probes.push({ sentAt, doneAt: ledgerNow(), status });
      await delay(250);
    }
  })();
  return {
    probes,
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}

/**
 * Enqueues short jobs at `PER_SECOND` until `stop()`, through every outage: a batch whose
 * enqueue failed was not accepted (had it committed unseen, its jobs still run: the drain waits
 * for every row). @returns the accepted ids, and how many batches failed.
 */
function produce(cluster: ChaosCluster) {
  let stopped = false;
  let failedBatches = 0;
  const loop = (async () => {
    const ids: number[] = [];
    while (!stopped) {
      const batch = Array.from({ length: PER_SECOND / 10 }, () => ({
        kind: 'work',
        payload: { ms: randomInt(50, 300) },
      }));
      try {
        ids.push(...(await cluster.enqueue(batch)));
      } catch {
        failedBatches += 1;
      }
      await delay(100);
    }
    return ids;
  })();
  return {
    get failedBatches() {
      return failedBatches;
    },
    stop: async () => {
      stopped = true;
      return loop;
    },
  };
}

/**
 * Enqueues a job ahead of the backlog (priority -1) and waits for `instance` to start it;
 * @returns its id and the ms from `since` to its start (`Infinity` when it did not start within 30 s).
 */
async function resumeTime(cluster: ChaosCluster, instance: Instance, since: number) {
  const [id] = await cluster.enqueue([{ kind: 'work', priority: -1, payload: { ms: 0 } }]);
  for (let waited = 0; waited < 30_000; waited += 20) {
    const started = readLedger(cluster.ledgerDir).find((e) => e.id === id && e.pid === instance.pid);
    if (started) return { id: id!, ms: started.startedAt - since };
    await delay(20);
  }
  return { id: id!, ms: Number.POSITIVE_INFINITY };
}

/** Asks `/readyz` until it answers 200; @returns the ms from `since` (`Infinity`: not within 30 s). */
async function readyTime(instance: Instance, since: number): Promise<number> {
  while (ledgerNow() - since < 30_000) {
    const status = await fetch(`${instance.server.url}/readyz`, {
      signal: AbortSignal.timeout(READYZ_TIMEOUT_MS),
    }).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return ledgerNow() - since;
    await delay(50);
  }
  return Number.POSITIVE_INFINITY;
}

/**
 * Scenario 7: PostgreSQL goes away under a running instance, three ways, while jobs keep coming:
 * (a) every backend of the instance is terminated (`pg_terminate_backend`, found by its
 * `application_name`) every 2 s; (b) PostgreSQL itself is restarted (a fast shutdown, 2 s down,
 * then a start on the same port: every session ends, open transactions roll back), so the scenario runs
 * on a server of its own, never the shared test server; (c) every connection of the instance is
 * reset (TCP RST) by the proxy in front of it, new ones too, for 2 s; (d) a partition: the proxy
 * blackholes for longer than a lease. Checks that the process never exits,
 * `/readyz` always answers (unready during the blackhole, ready again within 5 s after), a new
 * job starts within 5 s of each recovery, and nothing is lost.
 */
export const databaseOutages: Scenario = {
  id: 7,
  title: 'database outages: backends terminated, a restart, connections reset, a blackhole',
  dialects: ['postgres'],
  run: async (dialect, size) => {
    const server = await startRestartablePostgres();
    try {
      return await runInCluster(
        {
          scenario: 7,
          title: databaseOutages.title,
          timers: { leaseMs: 2_000, sweepIntervalMs: 500, pollIntervalMs: 500 },
          env: { NUDGE_ASYNC_CONCURRENCY: '20' },
          postgresAdminUrl: server.url,
        },
        dialect,
        async (cluster) => {
          const { instance: a, proxy } = await startProxied(cluster, 'a', {
            NUDGE_DB_TIMEOUT_MS: String(DB_TIMEOUT_MS),
            NUDGE_DB_CONNECT_TIMEOUT_MS: '1000',
          });
          const readiness = probeReadiness(a);
          const producer = produce(cluster);
          /** Per fault, the ms from its end until a new job started, and until /readyz said ready. */
          const resumed: Record<string, number> = {};
          const readyAgain: Record<string, number> = {};
          const markers: number[] = [];
          const recovered = async (fault: string) => {
            const at = ledgerNow();
            const [job, ready] = await Promise.all([resumeTime(cluster, a, at), readyTime(a, at)]);
            markers.push(job.id);
            resumed[fault] = job.ms;
            readyAgain[fault] = ready;
          };
          let terminated = 0;
          try {
            // (a) Backends terminated; this database only (other tests may name an instance `a` too).
            for (let elapsed = 0; elapsed < TERMINATING_MS[size]; elapsed += 2_000) {
              await delay(2_000);
              // Recorded as a partition: a terminated backend cuts the instance's session, so a
              // completion in flight on it can be lost and its job run again after the lease.
              cluster.partitioned(a.name);
              const rows = await rawQuery<{ ok: boolean }>(
                cluster.db,
                `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
                WHERE application_name = ? AND datname = current_database()`,
                [`chaos-${a.name}`],
              );
              terminated += rows.filter((row) => row.ok).length;
            }
            await recovered('backends terminated');

            // (b) A restart of the server: every session ended, the port closed until it is back.
            // Recorded as a partition: meanwhile the instance cannot reach the database at all.
            cluster.partitioned(a.name);
            const restartDownMs = await server.restart(RESTART_PAUSE_MS);
            await recovered('restart');

            // (c) Connections reset: what a firewall or a load balancer dropping the flow does.
            cluster.partitioned(a.name);
            await proxy.setMode('reset');
            await delay(RESET_MS);
            await proxy.setMode('forward');
            await recovered('reset');

            // (d) A partition longer than a lease: the sweep requeues what a held once it is back.
            cluster.partitioned(a.name);
            const cutAt = ledgerNow();
            await proxy.setMode('blackhole');
            await delay(BLACKHOLE_MS[size]);
            const healedAt = ledgerNow();
            await proxy.setMode('forward');
            await recovered('blackhole');

            const accepted = [...(await producer.stop()), ...markers];
            await readiness.stop();
            const probes = readiness.probes;
            // Drained here, while the proxy that is a's only way to the database is still open.
            await cluster.mustDrain(30_000);

            const duringBlackhole = probes.filter((p) => p.sentAt >= cutAt && p.doneAt <= healedAt);
            const worst = (record: Record<string, number>) => Math.max(...Object.values(record));
            return {
              accepted,
              checks: {
                'backends were terminated': terminated > 0,
                'the process never exited': !a.exited,
                '/readyz always answered within 5 s': probes.every((p) => p.status !== 0),
                '/readyz was unready throughout the blackhole':
                  duringBlackhole.length > 0 && duringBlackhole.every((p) => p.status === 503),
                '/readyz was ready within 5 s of each recovery': worst(readyAgain) <= RESUME_WITHIN_MS,
                'a new job started within 5 s of each recovery': worst(resumed) <= RESUME_WITHIN_MS,
              },
              recovery: { worstMs: worst(resumed), boundMs: RESUME_WITHIN_MS },
              notes: {
                'backends terminated': terminated,
                'server down for the restart, ms': Math.round(restartDownMs),
                'enqueue batches refused during the outages': producer.failedBatches,
                ...Object.fromEntries(
                  Object.entries(resumed).map(([k, ms]) => [`job start after ${k}, ms`, ms]),
                ),
                ...Object.fromEntries(
                  Object.entries(readyAgain).map(([k, ms]) => [`ready after ${k}, ms`, ms]),
                ),
                '/readyz answers during the blackhole': duringBlackhole.length,
              },
            };
          } finally {
            await producer.stop();
            await readiness.stop();
            await proxy.close();
          }
        },
      );
    } finally {
      await server.stop();
    }
  },
};

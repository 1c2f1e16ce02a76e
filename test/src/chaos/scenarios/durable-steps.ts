import { rawQuery } from '@nudge/test-databases';
import { readAudit } from '../audit.js';
import type { ChaosCluster } from '../cluster.js';
import { analyseDurable, type DurableEvidence, type DurableFindings } from '../durable-checks.js';
import type { DurableFlowPayload } from '../durable-handlers.js';
import { delay, randomInt, runInCluster } from '../run-scenario.js';
import type { ChaosSize, Scenario } from '../scenario.js';
import { APPROVALS_TABLE, SignalProducer, type SignalSend } from '../signal-producer.js';
import { readStepLedger } from '../step-ledger.js';

const JOBS: Record<ChaosSize, number> = { test: 2_000, ci: 2_000, full: 5_000 };
/** Enqueue rate: the jobs arrive over the first faults, so every fault catches steps in flight. */
const PER_SECOND = 40;
/** Each wait's timeout, in ms: the jobs whose every signal rolls back finish by it. */
const TIMEOUT_MS = 6_000;
const INSTANCES = ['a', 'b', 'c'];
const LEASE_MS = 2_000;
/** Longest wait for an instance to listen, in ms. */
const START_TIMEOUT_MS = 120_000;

/**
 * How each job's `approve` signals are sent (by its index, in twentieths): `early` commits within
 * 3 s, likely before the wait; `retried` rolls back, then commits within 4.5 s; `never` only rolls
 * back (the wait times out, and the job still finishes); `late` commits 5 to 9 s in, racing the
 * deadline (either outcome is right, once). Every tenth job also gets a second committed signal,
 * which changes nothing (or is refused once the job has finished).
 */
function planSignals(producer: SignalProducer, id: number, index: number): void {
  const share = index % 20;
  if (share < 7) producer.schedule(id, randomInt(0, 3_000), false);
  else if (share < 14) {
    producer.schedule(id, randomInt(0, 1_500), true);
    producer.schedule(id, randomInt(2_000, 4_500), false);
  } else if (share < 17) {
    producer.schedule(id, randomInt(0, 4_000), true);
    if (share === 16) producer.schedule(id, randomInt(4_000, 8_000), true);
  } else producer.schedule(id, randomInt(5_000, 9_000), false);
  if (index % 10 === 0) producer.schedule(id, randomInt(3_000, 6_000), false);
}

/** Enqueues `count` durable flows at {@link PER_SECOND}, planning each one's signals; @returns the ids. */
async function enqueueWithSignals(
  cluster: ChaosCluster,
  producer: SignalProducer,
  count: number,
): Promise<number[]> {
  const batch = PER_SECOND / 10;
  const ids: number[] = [];
  const started = performance.now();
  for (let i = 0; i < count; i += batch) {
    const inputs = Array.from({ length: Math.min(batch, count - i) }, () => {
      const payload: DurableFlowPayload = {
        workMs: randomInt(20, 120),
        coolMs: randomInt(200, 1_500),
        timeoutMs: TIMEOUT_MS,
        settleMs: randomInt(100, 500),
      };
      return { kind: 'durableFlow', payload: { ...payload } };
    });
    for (const id of await cluster.enqueue(inputs)) {
      planSignals(producer, id, ids.length);
      ids.push(id);
    }
    await delay(Math.max(0, started + ((i + batch) / PER_SECOND) * 1000 - performance.now()));
  }
  return ids;
}

/**
 * Three SIGKILLs and two SIGSTOPs of 3 leases (then SIGCONT), each of a random instance that is
 * up, spread over `runMs` and the flows still running after it. A killed instance is restarted
 * at once, without holding up the next fault (a start takes seconds of CPU, long on a busy
 * machine): it is up again once it listens. Resolves when every instance is up again.
 */
async function injectFaults(cluster: ChaosCluster, runMs: number): Promise<void> {
  const up = new Set(INSTANCES);
  const restarts: Promise<unknown>[] = [];
  // At least one instance stays up through each fault.
  const victim = async (): Promise<string> => {
    while (up.size < 2) await delay(100);
    const names = [...up];
    const name = names[randomInt(0, names.length - 1)];
    if (name === undefined) throw new Error('no instance is up to fault');
    return name;
  };
  const kill = async () => {
    const name = await victim();
    up.delete(name);
    await cluster.kill(name);
    restarts.push(cluster.start(name, {}, START_TIMEOUT_MS).then(() => up.add(name)));
  };
  const stop = async () => {
    const name = await victim();
    up.delete(name);
    cluster.pause(name);
    await delay(3 * LEASE_MS);
    cluster.resume(name);
    up.add(name);
  };
  await delay(runMs / 5);
  await kill();
  await delay(runMs / 5);
  await stop();
  await kill();
  await delay(runMs / 5);
  await stop();
  await kill();
  await Promise.all(restarts);
}

/**
 * Commits on the scenario's database return before their WAL is flushed (for connections opened
 * from now on, so before any instance starts). The scenario kills and stops instances, never the
 * database server, against which alone a flush guards; and 2,000 flows commit some 20,000 times
 * (each step, suspend and signal durably), which on a small machine would queue behind the disk.
 */
async function unsyncedCommits(cluster: ChaosCluster): Promise<void> {
  const name = new URL(cluster.db.url).pathname.slice(1);
  await rawQuery(cluster.db, `ALTER DATABASE "${name}" SET synchronous_commit = off`);
}

/** What the checks read once every job finished. */
async function readEvidence(cluster: ChaosCluster, sends: readonly SignalSend[]): Promise<DurableEvidence> {
  const jobs = await rawQuery<{ id: string; status: string }>(
    cluster.db,
    'SELECT id, status FROM nudge_jobs',
  );
  const steps = await rawQuery<Record<string, unknown>>(
    cluster.db,
    `SELECT job_id, name, status, result, extract(epoch FROM ended_at) * 1000 AS ended,
            extract(epoch FROM wake_at) * 1000 AS wake FROM nudge_job_steps`,
  );
  const signals = await rawQuery<{ job_id: string; token: string }>(
    cluster.db,
    `SELECT job_id, payload ->> 'token' AS token FROM nudge_job_signals ORDER BY id`,
  );
  const approvals = await rawQuery<{ token: string }>(cluster.db, `SELECT token FROM ${APPROVALS_TABLE}`);
  const ms = (value: unknown) => (value === null ? null : Number(value));
  return {
    jobs: new Map(jobs.map((row) => [Number(row.id), row.status])),
    steps: steps.map((row) => ({
      jobId: Number(row.job_id),
      name: String(row.name),
      status: String(row.status),
      result: row.result,
      endedAt: ms(row.ended),
      wakeAt: ms(row.wake),
    })),
    signals: signals.map((row) => ({ jobId: Number(row.job_id), token: row.token })),
    approvals: approvals.map((row) => row.token),
    ...readStepLedger(cluster.ledgerDir),
    sends,
    faults: cluster.faults,
    claims: new Map(
      (await readAudit(cluster.db))
        .filter((change) => change.newStatus === 'RUNNING')
        .map((change) => [`${change.jobId}:${change.newVersion}`, change.at]),
    ),
  };
}

/**
 * Scenario 19 (PostgreSQL): three instances run 2,000 durable flows (five steps, two sleeps and a
 * signal wait of 6 s) while a producer sends their signals inside its own transactions, rolling
 * some back; random instances are SIGKILLed three times (restarted) and SIGSTOPped twice for 3
 * leases. The step ledger and the rows must show every job finished, no finished step ran again,
 * every re-run of a step was of one a fault caught, each wait answered once, and no signal lost
 * or rolled-back one seen (durable-checks.ts).
 */
export const durableSteps: Scenario = {
  id: 19,
  title:
    'durable steps: 5 steps, sleeps and signal waits under kill -9 and SIGSTOP; signals in transactions, some rolled back',
  dialects: ['postgres'],
  run: async (dialect, size) => {
    let found: DurableFindings | undefined;
    const result = await runInCluster(
      {
        scenario: 19,
        title: durableSteps.title,
        timers: { leaseMs: LEASE_MS, sweepIntervalMs: 500, pollIntervalMs: 500 },
        env: { NUDGE_ASYNC_CONCURRENCY: '100' },
        drainTimeoutMs: 120_000,
      },
      dialect,
      async (cluster) => {
        const started = performance.now();
        await unsyncedCommits(cluster);
        const producer = new SignalProducer(cluster.db.url);
        try {
          await producer.prepare();
          for (const name of INSTANCES) await cluster.start(name, {}, START_TIMEOUT_MS);
          const count = JOBS[size];
          const [ids] = await Promise.all([
            enqueueWithSignals(cluster, producer, count),
            injectFaults(cluster, (count / PER_SECOND) * 1000),
          ]);
          const sends = await producer.settled();
          await cluster.mustDrain(120_000, 'the durable flows');
          found = analyseDurable(await readEvidence(cluster, sends));
          if (found.details.length > 0) console.error(found.details.slice(0, 20).join('\n'));
          return {
            accepted: ids,
            // A durable job runs one attempt per sleep and wait by design: its re-runs are judged per step.
            repeating: new Set(ids),
            recovery: { worstMs: found.worstRecoveryMs ?? 0, boundMs: cluster.recoveryBoundMs },
            checks: found.checks,
            notes: { ...found.notes, 'run s': Math.round((performance.now() - started) / 1000) },
          };
        } finally {
          await producer.close();
        }
      },
    );
    if (!found) return result;
    return {
      ...result,
      duplicatesExplained: found.jobsRerunExplained,
      duplicatesUnexplained: found.jobsRerunUnexplained,
    };
  },
};

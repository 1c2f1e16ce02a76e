import type { Job } from '@nudge/core';
import { DIALECTS } from '@nudge/test-databases';
import { readAudit } from '../audit.js';
import type { ChaosCluster, Instance } from '../cluster.js';
import { readLedger } from '../ledger.js';
import type { ChaosSize, Scenario } from '../scenario.js';
import { delay, randomInt, runInCluster } from '../run-scenario.js';

const SKEW_CLOCK = new URL('../skew-clock.js', import.meta.url).href;
const SKEW_MS = 10 * 60_000;
const LEASE_MS = 1_000;
/** Jobs 2.5 leases long (kept by heartbeats), short jobs streamed, and jobs scheduled 1–4 s ahead. */
const LONG: Record<ChaosSize, number> = { test: 40, ci: 100, full: 300 };
const SHORT: Record<ChaosSize, number> = { test: 400, ci: 1_500, full: 5_000 };
const SCHEDULED: Record<ChaosSize, number> = { test: 40, ci: 150, full: 500 };
/** How far a handler's start (the ledger's monotonic clock) may precede `run_at` (the database's): clock drift, not lateness. */
const LEDGER_SLACK_MS = 100;

/** POSTs `body` to `path` of `instance`; @returns the answer's JSON. */
async function post(instance: Instance, path: string, body: unknown): Promise<unknown> {
  const response = await fetch(`${instance.server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/**
 * How far `instance`'s `Date` is from this process's, in ms: the `time` of its first log line
 * (pino reads `Date.now()`; at `warn`, the startup warning about API keys), read as it appears.
 */
async function skewOf(instance: Instance): Promise<number> {
  for (let waited = 0; waited < 5_000; waited += 10) {
    for (const line of instance.server.output().stdout.split('\n')) {
      const time = (JSON.parse(line.startsWith('{') ? line : 'null') as { time?: number } | null)?.time;
      if (time !== undefined) return time - Date.now();
    }
    await delay(10);
  }
  return NaN;
}

/** Every job of `ids`, read through the store. */
async function jobsOf(cluster: ChaosCluster, ids: readonly number[]): Promise<Job[]> {
  const jobs: Job[] = [];
  for (let i = 0; i < ids.length; i += 500) {
    jobs.push(...(await cluster.store.listJobs({ ids: ids.slice(i, i + 500), limit: 500 })));
  }
  return jobs;
}

/**
 * Scenario 10: two instances whose `Date` is 10 minutes ahead and 10 minutes behind (a preload
 * shifts it; their worker threads and monotonic clocks stay true) share the jobs: long jobs each
 * instance took through its own `POST /jobs`, a stream of short jobs, and jobs scheduled through
 * both instances' API with `delayMs` and with `runAt` (read from the database clock). Every
 * time predicate uses the database clock, so: no job is re-claimed while its holder lives (every
 * job ends SUCCEEDED at version 1, nothing swept or released, no error recorded, no duplicate),
 * and no scheduled job starts before its `run_at` (by the database's `started_at`, and by the
 * ledger's true clock).
 */
export const clockSkew: Scenario = {
  id: 10,
  title: 'instance clocks 10 minutes ahead and behind',
  dialects: DIALECTS,
  run: (dialect, size) =>
    runInCluster(
      {
        scenario: 10,
        title: clockSkew.title,
        timers: { leaseMs: LEASE_MS, sweepIntervalMs: 250, pollIntervalMs: 250 },
        env: {
          NUDGE_ASYNC_CONCURRENCY: '100',
          NODE_OPTIONS: `--import=${SKEW_CLOCK}`,
          // Its one startup warning carries a pino time: the proof that the skew took.
          LOG_LEVEL: 'warn',
        },
      },
      dialect,
      async (cluster) => {
        const ahead = await cluster.start('ahead', { NUDGE_CHAOS_CLOCK_OFFSET_MS: String(SKEW_MS) });
        const aheadSkew = await skewOf(ahead);
        const behind = await cluster.start('behind', { NUDGE_CHAOS_CLOCK_OFFSET_MS: String(-SKEW_MS) });
        const skews = { ahead: aheadSkew, behind: await skewOf(behind) };
        const instances = [ahead, behind];

        // Long jobs through each instance's API: it inserts them claimed by itself, so both
        // hold leases that only their heartbeats keep.
        const long = await Promise.all(
          Array.from({ length: LONG[size] }, async (_, i) => {
            const job = await post(instances[i % 2]!, '/jobs', {
              kind: 'work',
              payload: { ms: 2.5 * LEASE_MS },
            });
            return (job as { id: number }).id;
          }),
        );
        const scheduled: number[] = [];
        for (let i = 0; i < SCHEDULED[size]; i += 10) {
          const dbNow = (await cluster.store.now()).getTime();
          const jobs = Array.from({ length: Math.min(10, SCHEDULED[size] - i) }, (_, k) => {
            const delayMs = randomInt(1_000, 4_000);
            const when = k % 2 === 0 ? { delayMs } : { runAt: new Date(dbNow + delayMs).toISOString() };
            return { kind: 'work', payload: { ms: 10 }, ...when };
          });
          const answer = (await post(instances[(i / 10) % 2]!, '/jobs/batch', { jobs })) as {
            jobs: Array<{ id: number }>;
          };
          scheduled.push(...answer.jobs.map((job) => job.id));
        }
        const short = await cluster.enqueuePaced(
          Array.from({ length: SHORT[size] }, () => ({ kind: 'work', payload: { ms: randomInt(10, 50) } })),
          100,
        );
        await cluster.mustDrain(30_000);

        const all = [...long, ...scheduled, ...short];
        const jobs = await jobsOf(cluster, all);
        const leftRunning = (await readAudit(cluster.db)).filter(
          (c) => c.oldStatus === 'RUNNING' && c.newStatus !== 'SUCCEEDED',
        );
        const ledger = readLedger(cluster.ledgerDir);
        const firstStart = new Map<number, number>();
        for (const e of ledger) if (!firstStart.has(e.id)) firstStart.set(e.id, e.startedAt);
        const scheduledSet = new Set(scheduled);
        const due = jobs.filter((job) => scheduledSet.has(job.id));
        const lateness = due.map((job) => (job.startedAt?.getTime() ?? NaN) - job.runAt.getTime());
        const pids = new Set(ledger.map((e) => e.pid));
        return {
          accepted: all,
          recoveryBound: false,
          checks: {
            'one instance runs 10 min ahead': Math.abs(skews.ahead - SKEW_MS) < 5_000,
            'the other runs 10 min behind': Math.abs(skews.behind + SKEW_MS) < 5_000,
            'both instances ran jobs': pids.has(ahead.pid) && pids.has(behind.pid),
            'every job SUCCEEDED at version 1 (claimed once, never swept or released)': jobs.every(
              (job) => job.status === 'SUCCEEDED' && job.version === 1,
            ),
            'no RUNNING job was swept, released or failed': leftRunning.length === 0,
            'no error recorded': jobs.every((job) => job.errors.length === 0),
            'scheduled jobs were due 1–4 s after their enqueue': due.every((job) => {
              const aheadMs = job.runAt.getTime() - job.createdAt.getTime();
              return aheadMs >= 900 && aheadMs <= 4_000;
            }),
            'no scheduled job started before run_at (started_at, database clock)': lateness.every(
              (ms) => ms >= 0,
            ),
            'no scheduled handler started before run_at (ledger)': due.every(
              (job) => (firstStart.get(job.id) ?? NaN) >= job.runAt.getTime() - LEDGER_SLACK_MS,
            ),
          },
          notes: {
            'skew of ahead (ms)': skews.ahead,
            'skew of behind (ms)': skews.behind,
            'worst scheduled start after run_at (ms)': Math.max(...lateness),
          },
        };
      },
    ),
};

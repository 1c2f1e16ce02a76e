import { NudgeApiError, nudge } from '@nudge/client';
import { DIALECTS } from '@nudge/test-databases';
import type { ChaosCluster } from '../cluster.js';
import { readLedger } from '../ledger.js';
import type { ChaosSize, Scenario } from '../scenario.js';
import { delay, runInCluster } from '../run-scenario.js';

const JOBS: Record<ChaosSize, number> = { test: 4_000, ci: 20_000, full: 100_000 };
const NUDGES_PER_SECOND = 1_000;
/** How long the storm goes on over an empty queue, in ms. */
const IDLE_STORM_MS = 3_000;
/**
 * The instances' `NUDGE_CLAIM_COOLDOWN_MS`, what bounds empty claim queries: 50, not the default
 * 10, so the bound (about 22 a second) stays well under what a loaded machine still delivers of
 * the storm's 250 requests a second per instance. One CI run delivered 41 a second (the rest
 * timed out in the client), under the default's bound of 103, and the check that the storm
 * exceeds the bound failed: it proves the cooldown, not the machine.
 */
const CLAIM_COOLDOWN_MS = 50;
const POLL_INTERVAL_MS = 1_000;

/** A counter's value in a Prometheus text exposition (0 when absent). */
function counter(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : 0;
}

/** Claim queries and claim requests of each live instance, from its /metrics. */
async function claimCounts(cluster: ChaosCluster) {
  return Promise.all(
    [...cluster.instances.values()].map(async (instance) => {
      const text = await (await fetch(`${instance.server.url}/metrics`)).text();
      return {
        queries: counter(text, 'nudge_claim_query_duration_seconds_count'),
        requests: counter(text, 'nudge_claim_requests_total'),
        // prom-client resets its event-loop delay histogram at each scrape: this covers the span
        // since the previous one.
        loopLagP99Ms: counter(text, 'nodejs_eventloop_lag_p99_seconds') * 1000,
      };
    }),
  );
}

/**
 * Most claim queries an instance may run over an empty queue in `seconds`, however many
 * wake-ups arrive: one per claim cooldown and one per poll (each may come with a pass already
 * owed when the window opened: 2 more).
 */
function idleQueryBound(seconds: number): number {
  return Math.floor((seconds * 1000) / CLAIM_COOLDOWN_MS + (seconds * 1000) / (0.9 * POLL_INTERVAL_MS)) + 2;
}

/**
 * Scenario 6: four instances drain no-op jobs while `POST /nudge` arrives 1,000 times a second
 * across them: no job is claimed twice at one version, and the nudges never multiply claim
 * queries. Over an empty queue, claim queries per second per instance stay under a bound set by
 * the claim cooldown, below the rate of nudges each instance receives, and never above it.
 */
export const nudgeStorm: Scenario = {
  id: 6,
  title: '4 instances, no-op jobs, /nudge storm of 1,000 requests/s',
  dialects: DIALECTS,
  run: (dialect, size) =>
    runInCluster(
      {
        scenario: 6,
        title: nudgeStorm.title,
        timers: { leaseMs: 10_000, sweepIntervalMs: 1_000, pollIntervalMs: POLL_INTERVAL_MS },
        env: { NUDGE_ASYNC_CONCURRENCY: '200', NUDGE_CLAIM_COOLDOWN_MS: String(CLAIM_COOLDOWN_MS) },
        drainTimeoutMs: 300_000,
      },
      dialect,
      async (cluster) => {
        const names = ['a', 'b', 'c', 'd'];
        const instances = await Promise.all(names.map((name) => cluster.start(name)));
        const accepted = await cluster.enqueue(
          Array.from({ length: JOBS[size] }, () => ({ kind: 'work', payload: { ms: 0 } })),
        );
        let sent = 0;
        let answered5xx = 0;
        let answeredOther = 0;
        let unanswered = 0;
        let unansweredReason: string | undefined;
        const started = performance.now();
        let storming = true;
        const storm = (async () => {
          while (storming) {
            // Catch up with the rate every few ms, round robin over the instances.
            const due = Math.floor(((performance.now() - started) / 1000) * NUDGES_PER_SECOND);
            for (; sent < due; sent += 1) {
              const instance = instances[sent % instances.length]!;
              // As a producer nudges: the client SDK, which gives up after 1 s (a nudge is a hint).
              void nudge(instance.server.url).then((outcome) => {
                if (outcome.ok) return;
                const { error } = outcome;
                if (error instanceof NudgeApiError) {
                  if (error.status >= 500) answered5xx += 1;
                  else answeredOther += 1;
                  return;
                }
                unanswered += 1;
                unansweredReason ??= error.message;
              });
            }
            await delay(5);
          }
        })();
        const drained = await cluster.drained(300_000);
        // Then the storm goes on over an empty queue: every claim query now comes from a request.
        const before = await claimCounts(cluster);
        const idleStarted = performance.now();
        await delay(IDLE_STORM_MS);
        const after = await claimCounts(cluster);
        const idleSeconds = (performance.now() - idleStarted) / 1000;
        storming = false;
        await storm;
        const seconds = (performance.now() - started) / 1000;
        const idle = after.map((c, i) => ({
          queries: c.queries - before[i]!.queries,
          requests: c.requests - before[i]!.requests,
        }));
        const attempts = readLedger(cluster.ledgerDir);
        const pairs = new Set(attempts.map((a) => `${a.id}:${a.version}`));
        return {
          accepted,
          recoveryBound: false,
          checks: {
            'drained during the storm': drained,
            'no job ran twice at one version': pairs.size === attempts.length,
            // A pass owed or running when the window opened may end inside it: at most 2 more.
            'over an empty queue, claim queries never outnumber claim requests': idle.every(
              (c) => c.queries <= c.requests + 2,
            ),
            [`over an empty queue, claim queries per instance stay within the cooldown's bound (${Math.round(idleQueryBound(1))} a second)`]:
              idle.every((c) => c.queries <= idleQueryBound(idleSeconds)),
            'the storm sent each instance more claim requests than that bound': idle.every(
              (c) => c.requests > idleQueryBound(idleSeconds),
            ),
            'no nudge was answered 5xx': answered5xx === 0,
            'every answered nudge was accepted': answeredOther === 0,
          },
          notes: {
            'nudges per second': Math.round(sent / seconds),
            'nudges unanswered within 1 s': unanswered,
            'event-loop delay p99 while draining, ms (worst instance)': Math.round(
              Math.max(...before.map((c) => c.loopLagP99Ms)),
            ),
            ...(unansweredReason ? { 'first unanswered because': unansweredReason } : {}),
            'idle claim requests per second per instance (worst)': Math.round(
              Math.max(...idle.map((c) => c.requests)) / idleSeconds,
            ),
            'idle claim queries per second per instance (worst)': Math.round(
              Math.max(...idle.map((c) => c.queries)) / idleSeconds,
            ),
          },
        };
      },
    ),
};

import { rawQuery } from '@nudge/test-databases';
import type { ChaosCluster } from '../cluster.js';
import { readLedger } from '../ledger.js';
import type { ChaosSize, Scenario } from '../scenario.js';
import { delay, randomInt, runInCluster } from '../run-scenario.js';
import type { TcpProxy } from '../../helpers/tcp-proxy.js';
import { LoggedJobs } from '../instance-log.js';
import { startProxied } from '../proxied-instance.js';

const JOBS: Record<ChaosSize, number> = { test: 200, ci: 1_000, full: 5_000 };
/** Completion statements whose reply is cut off. */
const CUTS: Record<ChaosSize, number> = { test: 5, ci: 20, full: 100 };
const PER_SECOND = 100;
/** What the proxy looks for: the name of the store's prepared completion statement (`pg-complete.ts`), sent with every execution. */
const COMPLETION_MARKER = 'nudge_complete';
/** What the instance logs for each outcome its retry found fenced out (`outcome-writer.ts`). */
const DISCARDED = 'lease lost: outcome discarded';

/** Whether a PostgreSQL reply ends with ReadyForQuery (`Z`, length 5, status): the request is over. */
function endsWithReadyForQuery(reply: Buffer): boolean {
  const at = reply.length - 6;
  return at >= 0 && reply[at] === 0x5a && reply.readInt32BE(at + 1) === 5;
}

/**
 * The first column (the job id) of each DataRow of a whole reply, when its implicit transaction
 * committed: no ErrorResponse, and ReadyForQuery says idle (`I`), not failed.
 */
function committedIds(reply: Buffer): number[] {
  const ids: number[] = [];
  let failed = false;
  for (let at = 0; at + 5 <= reply.length;) {
    const type = reply[at];
    const length = reply.readInt32BE(at + 1);
    const body = reply.subarray(at + 5, at + 1 + length);
    if (type === 0x45) failed = true; // E
    if (type === 0x44 && body.readInt16BE(0) > 0)
      ids.push(Number(body.subarray(6, 6 + body.readInt32BE(2)).toString())); // D
    at += 1 + length;
  }
  return failed || reply.at(-1) !== 0x49 ? [] : ids;
}

/** Cuts `count` completion replies, one at a time; stops early when none comes within 10 s. */
async function cutCompletions(proxy: TcpProxy, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) {
    const before = proxy.cutReplies.length;
    proxy.cutAfterReply(COMPLETION_MARKER, endsWithReadyForQuery);
    for (let waited = 0; proxy.cutReplies.length === before; waited += 10) {
      if (waited > 10_000) return;
      await delay(10);
    }
    // Let the writer's retry (100 ms backoff) through before the next cut.
    await delay(randomInt(150, 300));
  }
}

async function rows(cluster: ChaosCluster, ids: readonly number[]) {
  if (ids.length === 0) return [];
  return rawQuery<{ id: number; status: string; version: number; result: unknown }>(
    cluster.db,
    `SELECT id, status, version, result FROM nudge_jobs WHERE id IN (${ids.join(',')})`,
  );
}

/**
 * Scenario 8: the commit of a completion succeeds on the server but its reply never reaches the
 * instance (the proxy in front of it forwards the completion statement, swallows the reply up to
 * ReadyForQuery, then closes the connection). The instance sees a dropped connection and retries
 * the write, which the fence turns into a no-op. Checks that such commits happened (counted from
 * the swallowed replies' rows), and that each of those jobs ran exactly once, ended SUCCEEDED with
 * its own attempt's result, and had its retried completion discarded, not applied twice.
 */
export const ambiguousCommit: Scenario = {
  id: 8,
  title: 'completion commits but the reply is lost (ambiguous commit)',
  dialects: ['postgres'],
  run: (dialect, size) =>
    runInCluster(
      {
        scenario: 8,
        title: ambiguousCommit.title,
        timers: { leaseMs: 2_000, sweepIntervalMs: 500, pollIntervalMs: 500 },
        env: { NUDGE_ASYNC_CONCURRENCY: '50' },
      },
      dialect,
      async (cluster) => {
        // `warn` for the discarded-outcome lines: the instance's side of each ambiguous commit.
        const { instance: a, proxy } = await startProxied(cluster, 'a', { LOG_LEVEL: 'warn' });
        const discarded = new LoggedJobs(a, DISCARDED);
        try {
          const producing = cluster.enqueuePaced(
            Array.from({ length: JOBS[size] }, () => ({ kind: 'work', payload: { ms: randomInt(10, 100) } })),
            PER_SECOND,
          );
          await cutCompletions(proxy, CUTS[size]);
          const accepted = await producing;
          const ambiguous = [...new Set(proxy.cutReplies.flatMap(committedIds))];
          await cluster.mustDrain(30_000);
          // The retries of the last cuts are logged once written; wait for them.
          for (
            let waited = 0;
            ambiguous.some((id) => !discarded.read().has(id)) && waited < 10_000;
            waited += 100
          ) {
            await delay(100);
          }
          const runs = new Map<number, number>();
          for (const attempt of readLedger(cluster.ledgerDir))
            runs.set(attempt.id, (runs.get(attempt.id) ?? 0) + 1);
          const final = await rows(cluster, ambiguous);
          const parse = (result: unknown) =>
            (typeof result === 'string' ? JSON.parse(result) : result) as {
              version?: number;
              pid?: number;
            } | null;
          return {
            accepted,
            checks: {
              'completions committed while the instance saw an error': ambiguous.length > 0,
              'each such job ran exactly once': ambiguous.every((id) => runs.get(id) === 1),
              'each such job is SUCCEEDED with its own result':
                final.length === ambiguous.length &&
                final.every(
                  (row) =>
                    row.status === 'SUCCEEDED' &&
                    parse(row.result)?.version === Number(row.version) &&
                    parse(row.result)?.pid === a.pid,
                ),
              "each such job's retried completion was discarded": ambiguous.every((id) =>
                discarded.ids.has(id),
              ),
              'the instance never exited': !a.exited,
            },
            recoveryBound: false,
            notes: { 'replies cut': proxy.cutReplies.length, 'ambiguous commits': ambiguous.length },
          };
        } finally {
          discarded.stop();
          await proxy.close();
        }
      },
    ),
};

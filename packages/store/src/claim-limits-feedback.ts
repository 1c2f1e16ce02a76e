import type { ClaimedJob, LimitedClaim } from './claim-types.js';

/**
 * A rate-limited queue as a claim read it, before the claim's own starts:
 * `[name, limit, intervalMs, startsInWindow, oldestStartMs | null]` (epoch ms, database clock).
 */
export type RateRow = [string, number, number, number, number | null];

/**
 * What a claim of limited queues tells its caller ({@link ClaimInput.onLimited}): `held`, the
 * limited queues whose limits held back due jobs, and, when some rate window is now full, how
 * long until it lets the next job start: the oldest start in the window leaves it `intervalMs`
 * after it happened (a claim that filled an empty window leaves it a whole interval later).
 */
export function limitsFeedback(
  held: readonly string[],
  rates: readonly RateRow[],
  jobs: readonly ClaimedJob[],
  nowMs: number,
): LimitedClaim {
  let retryInMs: number | undefined;
  for (const [name, limit, intervalMs, started, oldest] of rates) {
    const startedNow = jobs.filter((job) => job.queue === name).length;
    if (started + startedNow < limit) continue;
    const wait = Math.max(1, Math.ceil((oldest ?? nowMs) + intervalMs - nowMs));
    retryInMs = retryInMs === undefined ? wait : Math.min(retryInMs, wait);
  }
  return retryInMs === undefined ? { queues: held } : { queues: held, retryInMs };
}

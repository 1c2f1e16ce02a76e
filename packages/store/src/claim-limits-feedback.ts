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
 * `rateWindows` gives that wait per rate-limited queue (0 for a window with room), at `nowMs`.
 */
export function limitsFeedback(
  held: readonly string[],
  rates: readonly RateRow[],
  jobs: readonly ClaimedJob[],
  nowMs: number,
): LimitedClaim {
  let retryInMs: number | undefined;
  const rateWindows: Record<string, number> = {};
  for (const [name, limit, intervalMs, started, oldest] of rates) {
    const startedNow = jobs.filter((job) => job.queue === name).length;
    rateWindows[name] = 0;
    if (started + startedNow < limit) continue;
    const wait = Math.max(1, Math.ceil((oldest ?? nowMs) + intervalMs - nowMs));
    rateWindows[name] = wait;
    retryInMs = retryInMs === undefined ? wait : Math.min(retryInMs, wait);
  }
  const windows = rates.length === 0 ? {} : { rateWindows, nowMs };
  return retryInMs === undefined ? { queues: held, ...windows } : { queues: held, retryInMs, ...windows };
}

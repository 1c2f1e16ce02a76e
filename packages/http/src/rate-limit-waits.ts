/** How far back the full-window periods of a queue are kept, in ms: the histogram's last bucket. */
export const RATE_PERIODS_KEPT_MS = 3_600_000;
/** Most full-window periods kept per queue (the oldest are dropped first). */
const MAX_PERIODS = 1000;

/** A period during which a queue's rate window was full, in epoch ms by the database clock. */
interface FullPeriod {
  start: number;
  end: number;
}

/**
 * How long claimed jobs waited on their queue's rate limit, from what this instance's claims saw
 * of each rate-limited queue's window (the `claim:rate-windows` event): a claim at `nowMs` that
 * finds a window full until `nowMs + wait` records that period (the end is exact: the oldest start
 * in the window leaves it then). A job claimed at `nowMs` that was due `waitMs` before waited on
 * the rate limit for the part of `[nowMs − waitMs, nowMs)` inside those periods. A window that
 * another instance filled counts from this instance's next claim that saw it (within a poll
 * interval), so the measure can fall short of the truth by that much, never exceed it.
 */
export class RateLimitWaits {
  readonly #periods = new Map<string, FullPeriod[]>();
  #rated: ReadonlySet<string> = new Set();
  #nowMs: number | undefined;

  /** Takes in a claim's view of the rate-limited queues it saw (before its jobs start). */
  claimed(nowMs: number, rateWindows: Readonly<Record<string, number>>): void {
    this.#nowMs = nowMs;
    this.#rated = new Set(Object.keys(rateWindows));
    for (const [queue, wait] of Object.entries(rateWindows)) {
      const periods = this.#periods.get(queue) ?? [];
      const last = periods.at(-1);
      if (wait > 0) {
        if (last && last.end >= nowMs) last.end = Math.max(last.end, nowMs + wait);
        else periods.push({ start: nowMs, end: nowMs + wait });
      } else if (last && last.end > nowMs) {
        // Room earlier than foreseen (the limit was raised): the period ends now.
        last.end = Math.max(last.start, nowMs);
      }
      while (periods.length > MAX_PERIODS || (periods[0] && periods[0].end < nowMs - RATE_PERIODS_KEPT_MS))
        periods.shift();
      if (periods.length > 0) this.#periods.set(queue, periods);
      else this.#periods.delete(queue);
    }
  }

  /**
   * The ms a job of `queue` claimed by the latest claim waited on its rate limit, given `waitMs`
   * (due → claim); `undefined` when the queue had no rate limit at that claim.
   */
  waitedMs(queue: string, waitMs: number): number | undefined {
    if (this.#nowMs === undefined || !this.#rated.has(queue)) return undefined;
    const claimedAt = this.#nowMs;
    const dueAt = claimedAt - waitMs;
    let waited = 0;
    for (const { start, end } of this.#periods.get(queue) ?? []) {
      waited += Math.max(0, Math.min(end, claimedAt) - Math.max(start, dueAt));
    }
    return waited;
  }
}

/**
 * How long a SQLite store leaves a limited queue out of its claims after one found it held back,
 * in ms of the database clock, unless an outcome it writes frees room first. Another process's
 * outcome, a sweep or a change of the queue's limits is seen by the next claim after that.
 */
export const HELD_QUEUE_SKIP_MS = 100;

/** Most running jobs of limited queues remembered; past it the memory starts over (see below). */
const MAX_REMEMBERED_JOBS = 10_000;

/**
 * The limited queues (concurrency or key limits, no rate limit) that a SQLite store's last claim
 * found held back by their limits: every due job of its kinds there waits for room. While nothing
 * can have freed room, each claim would read the queue's limits, probe its keys and offer a
 * candidate that takes nothing, several statements per claim: beside 100,000 held-back jobs of
 * one busy key, a drain of another queue ran at 59 % of its speed alone. The store leaves such a
 * queue out of its claims (room 0, reported held) until it writes an outcome of a job it claimed
 * from the queue, sweeps or cancels jobs or sets limits, or {@link HELD_QUEUE_SKIP_MS} has passed.
 * Only what the store asks: the limits
 * are read and enforced by every claim that offers the queue. A rate-limited queue is never left
 * out: its window reopens at a time the claim reports.
 */
export class SqliteHeldQueues {
  /** Queue → database-clock ms until which claims leave it out. */
  readonly #until = new Map<string, number>();
  /** Running job id → its limited queue, for the jobs this store claimed from one. */
  readonly #claimed = new Map<number, string>();

  /** Whether a claim at `nowMs` (database clock) leaves `queue` out. */
  skips(queue: string, nowMs: number): boolean {
    const until = this.#until.get(queue);
    if (until === undefined) return false;
    if (until > nowMs) return true;
    this.#until.delete(queue);
    return false;
  }

  /** A claim at `nowMs` found `queue` held back. */
  hold(queue: string, nowMs: number): void {
    this.#until.set(queue, nowMs + HELD_QUEUE_SKIP_MS);
  }

  /** The store claimed job `id` from the limited queue `queue`. */
  claimed(id: number, queue: string): void {
    // Jobs whose outcome another instance wrote (a lost lease) are never forgotten one by one.
    if (this.#claimed.size >= MAX_REMEMBERED_JOBS) this.#claimed.clear();
    this.#claimed.set(id, queue);
  }

  /** Room may have changed anywhere (a sweep, a cancel, new limits): every queue is offered again. */
  forgetAll(): void {
    this.#until.clear();
  }

  /** The attempts of `ids` ended by this store's outcomes: their queues may have room again. */
  ended(ids: Iterable<number>): void {
    for (const id of ids) {
      const queue = this.#claimed.get(id);
      if (queue === undefined) continue;
      this.#claimed.delete(id);
      this.#until.delete(queue);
    }
  }
}

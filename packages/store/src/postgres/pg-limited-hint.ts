import type { ClaimGroup, ClaimInput } from '../store.js';

/**
 * How many claims of one limited queue may run side by side (see migrations 0014 and 0018,
 * `nudge_lock_limited_queues`): each takes one of this many advisory-lock slots, and may share
 * the queue only when it takes at most the queue's share size (its least limit over this number
 * squared) and its room leaves that much for each of the others besides what it takes.
 */
export const SHARE_SLOTS = 4;

/** A limited queue a claim statement locks, and whether it asks to share it (see {@link SHARE_SLOTS}). */
export interface LimitedLock {
  readonly name: string;
  readonly share: boolean;
}

/**
 * The most rows of `queue` one claim of `groups` can take: the sum of the limits of the groups
 * that serve it, capped by this instance's cap of the queue, if any.
 */
export function limitedWant(input: ClaimInput, groups: readonly ClaimGroup[], queue: string): number {
  const served = groups
    .filter((group) => group.queues === undefined || group.queues.includes(queue))
    .reduce((sum, group) => sum + group.limit, 0);
  return Math.min(input.queueLimits?.[queue] ?? served, served);
}

/**
 * What a PostgreSQL store remembers between claims of limited queues: which queues its last
 * claim of the same kinds saw ready (to lock next time: a pass for other kinds, which finds none
 * of its jobs there, then locks nothing), and which had room to spare (a claim takes at most the
 * queue's share size, and the room is at least twice what a shared claim needs to see, so the
 * next claim asks to share them). Only a
 * guess of what to ask for: the limits themselves are read and enforced by every claim.
 */
export class LimitedQueueHint {
  readonly #queues = new Map<string, readonly string[]>();
  readonly #spare = new Set<string>();

  /** The queues to lock for a claim of `kinds`, each with whether to ask to share it. */
  get(kinds: string): LimitedLock[] {
    return (this.#queues.get(kinds) ?? []).map((name) => ({ name, share: this.#spare.has(name) }));
  }

  /** Records what a claim of `kinds` saw ready. */
  set(kinds: string, queues: readonly string[]): void {
    if (queues.length === 0) this.#queues.delete(kinds);
    else this.#queues.set(kinds, queues);
  }

  /**
   * Records the room a claim found in `queue` (`free`, before its own starts), for a claim that
   * takes up to `want`, and the queue's share size (`null`: no concurrency or rate limit).
   */
  setRoom(queue: string, free: number, want: number, shareSize: number | null): void {
    const spare =
      shareSize === null || (want <= shareSize && free >= 2 * ((SHARE_SLOTS - 1) * shareSize + want));
    if (spare) this.#spare.add(queue);
    else this.#spare.delete(queue);
  }
}

import {
  compareCodePoints,
  type NamePage,
  type StatusCounts,
  type Store,
  type StoreStats,
} from '@nudge/store';

/**
 * Counting that took less than this, in ms, is not reused: each `GET /stats` counts afresh, as
 * exact as the database.
 */
export const STATS_REUSE_FROM_MS = 100;

/**
 * A snapshot answers `GET /stats` for up to this many times as long as its counting took, so
 * counting keeps one database connection busy at most 1/(1 + this) of the time, however many
 * clients poll (at 1,000,000 rows a whole count took 1.6–2.0 s: up to 16–20 s old).
 */
export const STATS_REUSE_FACTOR = 10;

/** A whole count: every kind and every queue, and how long it took, in ms. */
interface Snapshot {
  readonly stats: StoreStats;
  readonly kinds: readonly string[];
  readonly queues: readonly string[];
  /** When it was read, on the clock given to {@link StatsSnapshots}, in ms. */
  readonly readAtMs: number;
  readonly tookMs: number;
}

/**
 * What `GET /stats` answers from. While counting is cheap (under {@link STATS_REUSE_FROM_MS}),
 * each request reads its page from the store. Once a count takes longer, the whole count (every
 * kind and queue) is read once and pages are cut from it, in memory, for up to
 * {@link STATS_REUSE_FACTOR} times its counting time; for as long again it is still answered while
 * one new count runs behind it (one at a time). `at` in the answer says when its count was read.
 */
export class StatsSnapshots {
  readonly #store: Store;
  readonly #instanceLiveWithinMs: number;
  readonly #clock: () => number;
  #lastTookMs = 0;
  #snapshot: Snapshot | undefined;
  #counting: Promise<Snapshot> | undefined;

  /** `clock` gives ms on a steady clock (`performance.now()` by default; tests pass their own). */
  constructor(store: Store, instanceLiveWithinMs: number, clock: () => number = () => performance.now()) {
    this.#store = store;
    this.#instanceLiveWithinMs = instanceLiveWithinMs;
    this.#clock = clock;
  }

  /**
   * The stats with the pages `kinds` and `queues` of the counts by kind and by queue.
   * @throws whatever {@link Store.stats} throws, when a count must be waited for
   */
  async page(kinds: NamePage, queues: NamePage): Promise<StoreStats> {
    const snapshot = this.#snapshot;
    if (snapshot !== undefined) {
      const ageMs = this.#clock() - snapshot.readAtMs;
      const reuseMs = STATS_REUSE_FACTOR * snapshot.tookMs;
      if (ageMs <= reuseMs) return cut(snapshot, kinds, queues);
      if (ageMs <= 2 * reuseMs) {
        // Answered as it is while the next count runs: no client waits for a slow count twice.
        this.#countAll().catch(() => undefined);
        return cut(snapshot, kinds, queues);
      }
    }
    if (this.#lastTookMs >= STATS_REUSE_FROM_MS) return cut(await this.#countAll(), kinds, queues);
    const started = this.#clock();
    const stats = await this.#store.stats({
      instanceLiveWithinMs: this.#instanceLiveWithinMs,
      kinds,
      queues,
    });
    this.#lastTookMs = this.#clock() - started;
    return stats;
  }

  /** Counts every kind and queue, one count at a time. */
  #countAll(): Promise<Snapshot> {
    this.#counting ??= (async () => {
      const started = this.#clock();
      try {
        const stats = await this.#store.stats({ instanceLiveWithinMs: this.#instanceLiveWithinMs });
        const readAtMs = this.#clock();
        const snapshot: Snapshot = {
          stats,
          kinds: Object.keys(stats.byKind).sort(compareCodePoints),
          queues: Object.keys(stats.byQueue).sort(compareCodePoints),
          readAtMs,
          tookMs: readAtMs - started,
        };
        this.#snapshot = snapshot;
        this.#lastTookMs = snapshot.tookMs;
        return snapshot;
      } finally {
        this.#counting = undefined;
      }
    })();
    return this.#counting;
  }
}

/** The page of `names` (sorted by code point) that `page` asks for. */
function pageOf(names: readonly string[], page: NamePage): readonly string[] {
  if (page.limit === 0) return [];
  let start = 0;
  if (page.after !== undefined) {
    const after = page.after;
    let high = names.length;
    while (start < high) {
      const middle = (start + high) >>> 1;
      if (compareCodePoints(names[middle] as string, after) <= 0) start = middle + 1;
      else high = middle;
    }
  }
  return names.slice(start, start + page.limit);
}

const pick = (counts: Record<string, StatusCounts>, names: readonly string[]): Record<string, StatusCounts> =>
  Object.fromEntries(names.map((name) => [name, counts[name] as StatusCounts]));

/** `snapshot`'s stats with only the pages asked for of its counts by kind and by queue. */
function cut(snapshot: Snapshot, kinds: NamePage, queues: NamePage): StoreStats {
  return {
    ...snapshot.stats,
    byKind: pick(snapshot.stats.byKind, pageOf(snapshot.kinds, kinds)),
    byQueue: pick(snapshot.stats.byQueue, pageOf(snapshot.queues, queues)),
  };
}

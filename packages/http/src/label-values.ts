/**
 * The label value every value past the cap is counted under. Parentheses are in no queue name
 * (`QUEUE_NAME_PATTERN`) and no JavaScript export name a handler module's kinds come from.
 */
export const OTHER_LABEL = '(other)';

/**
 * How often the values with series of their own are chosen again from the busiest, at most, in
 * ms (at a scrape; see {@link LabelValues.rerank}).
 */
export const LABEL_RERANK_MS = 60_000;

/** Most values whose events a ranking window counts, per cap (bounds the memory of a flood of names). */
const TRACKED_PER_CAP = 10;

/**
 * The values of one metric label (`queue` or `kind`) that get series of their own: every pinned
 * value (configured, or recorded in the database), plus at most `cap` others: the first counted
 * until the cap is reached, then, at each {@link rerank}, the busiest of the last window (events
 * counted through {@link seen}). Any further value is counted as {@link OTHER_LABEL}. This bounds
 * the series an instance holds and a scrape writes, whatever names producers send.
 *
 * A value that loses its series at a ranking is counted as `(other)` from then on, and one that
 * gains a series starts it at zero (its earlier events stay in `(other)`): every series stays
 * monotonic, so `rate()` and `sum(rate())` stay exact; only a raw sum over the label drops by the
 * removed series.
 */
export class LabelValues {
  readonly #cap: number;
  readonly #pinned = new Set<string>();
  #admitted = new Set<string>();
  /** Events per value, pinned ones aside, since the last ranking (at most `cap × TRACKED_PER_CAP` values). */
  #events = new Map<string, number>();
  readonly #onDemoted: Array<(values: ReadonlySet<string>) => void> = [];

  /**
   * @param cap - most values besides the pinned ones with series of their own
   * @throws RangeError when `cap` is not a whole number of at least 0
   */
  constructor(cap: number, pinned: Iterable<string> = []) {
    if (!Number.isSafeInteger(cap) || cap < 0) {
      throw new RangeError(`the label cap must be a whole number >= 0 (got ${String(cap)})`);
    }
    this.#cap = cap;
    this.pin(pinned);
  }

  /** Gives `values` series of their own from now on, beside the cap. */
  pin(values: Iterable<string>): void {
    for (const value of values) {
      this.#pinned.add(value);
      this.#admitted.delete(value);
      this.#events.delete(value);
    }
  }

  /** Counts one event of `value` towards the next ranking (nudge counts a job's enqueue and each start). */
  seen(value: string): void {
    if (this.#pinned.has(value)) return;
    const events = this.#events.get(value);
    if (events !== undefined) this.#events.set(value, events + 1);
    else if (this.#events.size < Math.max(1, this.#cap) * TRACKED_PER_CAP) this.#events.set(value, 1);
  }

  /** The label to count `value` under: itself, or {@link OTHER_LABEL} once the cap is reached. */
  of(value: string): string {
    if (this.#pinned.has(value) || this.#admitted.has(value)) return value;
    if (this.#admitted.size >= this.#cap) return OTHER_LABEL;
    this.#admitted.add(value);
    return value;
  }

  /** Calls `listener` with the values that lost their series at each ranking. */
  onDemoted(listener: (values: ReadonlySet<string>) => void): void {
    this.#onDemoted.push(listener);
  }

  /**
   * Chooses the values with series of their own again: the `cap` with the most events since the
   * last ranking (on a tie, those that had a series keep it), and starts a new window.
   * @returns the values that lost their series (their listeners were told)
   */
  rerank(): ReadonlySet<string> {
    const events = this.#events;
    this.#events = new Map();
    const candidates = new Set([...this.#admitted, ...events.keys()]);
    if (candidates.size <= this.#cap) {
      this.#admitted = candidates;
      return new Set();
    }
    const ranked = [...candidates].sort(
      (a, b) =>
        (events.get(b) ?? 0) - (events.get(a) ?? 0) ||
        Number(this.#admitted.has(b)) - Number(this.#admitted.has(a)) ||
        (a < b ? -1 : a > b ? 1 : 0),
    );
    const admitted = new Set(ranked.slice(0, this.#cap));
    const demoted = new Set([...this.#admitted].filter((value) => !admitted.has(value)));
    this.#admitted = admitted;
    if (demoted.size > 0) for (const listener of this.#onDemoted) listener(demoted);
    return demoted;
  }
}

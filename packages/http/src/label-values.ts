/**
 * The label value every value past the cap is counted under. Parentheses are in no queue name
 * (`QUEUE_NAME_PATTERN`) and no JavaScript export name a handler module's kinds come from.
 */
export const OTHER_LABEL = '(other)';

/**
 * The values of one metric label (`queue` or `kind`) that get series of their own: every pinned
 * value (configured, or recorded in the database), plus the first `cap` other values counted;
 * any further value is counted as {@link OTHER_LABEL}. This bounds the series an instance holds
 * and a scrape writes, whatever names producers send. First come rather than busiest: a counter
 * whose label moved between its own series and `(other)` would break `rate()` on both.
 */
export class LabelValues {
  readonly #cap: number;
  readonly #pinned = new Set<string>();
  readonly #admitted = new Set<string>();

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
    for (const value of values) this.#pinned.add(value);
  }

  /** The label to count `value` under: itself, or {@link OTHER_LABEL} once the cap is reached. */
  of(value: string): string {
    if (this.#pinned.has(value) || this.#admitted.has(value)) return value;
    if (this.#admitted.size >= this.#cap) return OTHER_LABEL;
    this.#admitted.add(value);
    return value;
  }
}

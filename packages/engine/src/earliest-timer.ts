/**
 * A timer asked for several deadlines that fires once, at the earliest: a later ask while an
 * earlier one is armed changes nothing. After it fires (or {@link cancel}), any ask arms it again.
 */
export class EarliestTimer {
  readonly #fire: () => void;
  #timer: NodeJS.Timeout | undefined;
  /** When the armed timer fires, on the `performance.now()` clock, in ms; infinite when none is. */
  #dueAt = Number.POSITIVE_INFINITY;

  /** `fire` runs when the earliest deadline comes. */
  constructor(fire: () => void) {
    this.#fire = fire;
  }

  /** Fires in `delayMs` (ms) from now, unless it already fires sooner. */
  within(delayMs: number): void {
    const at = performance.now() + delayMs;
    if (at >= this.#dueAt) return;
    clearTimeout(this.#timer);
    this.#dueAt = at;
    this.#timer = setTimeout(() => {
      this.#dueAt = Number.POSITIVE_INFINITY;
      this.#fire();
    }, delayMs);
  }

  /** Disarms it. */
  cancel(): void {
    clearTimeout(this.#timer);
    this.#dueAt = Number.POSITIVE_INFINITY;
  }
}

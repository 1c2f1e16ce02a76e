/** Claim requests counted by a {@link ClaimTrigger}. */
export interface TriggerCounts {
  /** Every call of `request` (poll timer, nudges, enqueues, freed slots, notifications). */
  readonly requested: number;
  /** Requests that ran no pass of their own: folded into one more pass after the running one. */
  readonly coalesced: number;
}

/**
 * The one path to a claim. The poll timer, `POST /nudge`, an enqueue and a freed slot all call
 * {@link request}. Up to `maxInFlight` passes run at once (so a second claim can go to the
 * database while the first is still being answered); a request while that many run causes
 * exactly one more pass once one ends, however many requests came. A pass returns `true` to run
 * again at once (a full batch).
 */
export class ClaimTrigger {
  readonly #pass: () => Promise<boolean>;
  readonly #maxInFlight: number;
  readonly #running = new Set<Promise<void>>();
  #again = false;
  #requested = 0;
  #coalesced = 0;

  /**
   * @param pass - one claim pass; resolves `true` to run again at once
   * @param maxInFlight - passes allowed at once @defaultValue 1
   */
  constructor(pass: () => Promise<boolean>, maxInFlight = 1) {
    this.#pass = pass;
    this.#maxInFlight = maxInFlight;
  }

  /**
   * Claim requests so far, and how many of them coalesced: they came while `maxInFlight` passes
   * ran and were folded into one more pass (a pass already owed counts as coalescing too).
   */
  get counts(): TriggerCounts {
    return { requested: this.#requested, coalesced: this.#coalesced };
  }

  /** Asks for a claim pass; returns at once. */
  request(): void {
    this.#requested += 1;
    this.#start(true);
  }

  #start(counted: boolean): void {
    if (this.#running.size >= this.#maxInFlight) {
      this.#again = true;
      if (counted) this.#coalesced += 1;
      return;
    }
    const run: Promise<void> = this.#loop().finally(() => {
      this.#running.delete(run);
      if (this.#again) {
        this.#again = false;
        // The pass owed for coalesced requests is not a request of its own.
        this.#start(false);
      }
    });
    this.#running.add(run);
  }

  /** Resolves when no pass is running. */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.all(this.#running);
  }

  async #loop(): Promise<void> {
    while (await this.#pass()) {
      // A full batch: claim again at once.
    }
  }
}

/** Claim requests counted by a {@link ClaimTrigger}. */
export interface TriggerCounts {
  /** Every call of `request` (poll timer, nudges, enqueues, freed slots, notifications). */
  readonly requested: number;
  /**
   * Requests that ran no pass of their own: folded into one more pass after a running one, or
   * into the one pass that waits out the cooldown.
   */
  readonly coalesced: number;
}

/**
 * What one claim pass found: `full`, a class came back full (claim again at once); `claimed`,
 * some jobs; `empty`, its query found none; `skipped`, it ran no query (no slot was free).
 */
export type PassOutcome = 'full' | 'claimed' | 'empty' | 'skipped';

/** Options of a {@link ClaimTrigger}. */
export interface ClaimTriggerOptions {
  /** Passes allowed at once. @defaultValue 1 */
  readonly maxInFlight?: number;
  /**
   * Least time after an empty pass, once they come in a row, before the next one starts, in ms;
   * 0 never waits. @defaultValue 0
   */
  readonly cooldownMs?: number;
  /** A pass threw: it counts as an empty one, and the trigger goes on. @defaultValue ignore it */
  readonly onError?: (error: unknown) => void;
}

/** Empty claim queries in a row after which the next pass waits out the cooldown. */
const EMPTY_PASSES_BEFORE_COOLDOWN = 2;

/**
 * The one path to a claim. The poll timer, `POST /nudge`, an enqueue and a freed slot all call
 * {@link request}. Up to `maxInFlight` passes run at once (so a second claim can go to the
 * database while the first is still being answered); a request while that many run causes
 * exactly one more pass once one ends, however many requests came. A `full` pass runs again at
 * once.
 *
 * Bound on empty queries: after {@link EMPTY_PASSES_BEFORE_COOLDOWN} claim queries in a row
 * found nothing, the next pass starts no sooner than `cooldownMs` after the last of them ended,
 * and passes run one at a time until one finds a job; every request until then folds into that
 * one pass. So wake-ups for jobs that are already
 * taken (a `/nudge` storm, a notification after the nudge that claimed its job) cost at most
 * about `1000 / cooldownMs` claim queries a second, while a lone request, and the one empty pass
 * that often follows a claim, still run at once. River's `FetchCooldown` bounds fetches the same
 * way for every fetch; this one only paces queries that keep finding nothing.
 */
export class ClaimTrigger {
  readonly #pass: () => Promise<PassOutcome>;
  readonly #maxInFlight: number;
  readonly #cooldownMs: number;
  readonly #onError: (error: unknown) => void;
  readonly #running = new Set<Promise<void>>();
  #again = false;
  #requested = 0;
  #coalesced = 0;
  #emptyInARow = 0;
  /** `performance.now()` when the last empty pass ended. */
  #lastEmptyAt = Number.NEGATIVE_INFINITY;
  /** The pass waiting out the cooldown, and what resolves once it started (or was cancelled). */
  #deferred: { timer: NodeJS.Timeout; started: Promise<void>; release: () => void } | undefined;

  /** @param pass - one claim pass */
  constructor(pass: () => Promise<PassOutcome>, options: ClaimTriggerOptions = {}) {
    this.#pass = pass;
    this.#maxInFlight = options.maxInFlight ?? 1;
    this.#cooldownMs = options.cooldownMs ?? 0;
    this.#onError = options.onError ?? (() => undefined);
  }

  /**
   * Claim requests so far, and how many of them coalesced: they came while `maxInFlight` passes
   * ran, or while a pass waited out the cooldown (a pass already owed counts as coalescing too).
   */
  get counts(): TriggerCounts {
    return { requested: this.#requested, coalesced: this.#coalesced };
  }

  /** Asks for a claim pass; returns at once. */
  request(): void {
    this.#requested += 1;
    this.#start(true);
  }

  /** Cancels a pass waiting out the cooldown (on stop); later requests run passes as before. */
  cancelDeferred(): void {
    const deferred = this.#deferred;
    if (!deferred) return;
    clearTimeout(deferred.timer);
    this.#deferred = undefined;
    deferred.release();
  }

  #start(counted: boolean): void {
    // While empty passes come in a row, one pass at a time: a second one beside it would find
    // nothing too, and would double the paced rate of empty queries.
    const limit = this.#pacing() ? 1 : this.#maxInFlight;
    if (this.#running.size >= limit || this.#deferred) {
      this.#again ||= this.#running.size >= limit;
      if (counted) this.#coalesced += 1;
      return;
    }
    const wait = this.#cooldownLeft();
    if (wait > 0) {
      this.#defer(wait);
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

  /** Whether empty passes came in a row often enough that the cooldown paces the next ones. */
  #pacing(): boolean {
    return this.#cooldownMs > 0 && this.#emptyInARow >= EMPTY_PASSES_BEFORE_COOLDOWN;
  }

  #cooldownLeft(): number {
    if (!this.#pacing()) return 0;
    return this.#lastEmptyAt + this.#cooldownMs - performance.now();
  }

  #defer(waitMs: number): void {
    let release!: () => void;
    const started = new Promise<void>((resolve) => (release = resolve));
    const timer = setTimeout(() => {
      this.#deferred = undefined;
      this.#start(false);
      release();
    }, Math.ceil(waitMs));
    this.#deferred = { timer, started, release };
  }

  /** Resolves when no pass is running or waiting out the cooldown. */
  async idle(): Promise<void> {
    while (this.#running.size > 0 || this.#deferred) {
      await Promise.all([...this.#running, this.#deferred?.started]);
    }
  }

  async #loop(): Promise<void> {
    for (;;) {
      let outcome: PassOutcome;
      try {
        outcome = await this.#pass();
      } catch (error) {
        // Never an unhandled rejection: the poll loop and the next request try again.
        this.#onError(error);
        outcome = 'empty';
      }
      if (outcome === 'empty') {
        this.#emptyInARow += 1;
        this.#lastEmptyAt = performance.now();
      } else if (outcome !== 'skipped') {
        this.#emptyInARow = 0;
      }
      // A full batch: claim again at once.
      if (outcome !== 'full') return;
    }
  }
}

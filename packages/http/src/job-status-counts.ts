import type { JobStatus } from '@nudge/core';
import type { Store } from '@nudge/store';

/** Default time a count of jobs by status is reused, in ms (15 s, a common scrape interval). */
export const DEFAULT_STATUS_COUNT_MAX_AGE_MS = 15_000;

/**
 * Counts of jobs by status for the `nudge_jobs` gauge, reused for `maxAgeMs`: a scrape runs the
 * store's `countByStatus` (one `SELECT status, count(*) … GROUP BY status`) only when the last
 * count is older than that, and scrapes that arrive while a count runs share it. The query reads
 * the whole table (finished rows have no index of their own), so its cost grows with the rows
 * kept (retention bounds them); reusing it bounds that cost to one query per `maxAgeMs` whatever
 * the number of scrapers.
 */
export class JobStatusCounts {
  readonly #store: Pick<Store, 'countByStatus'>;
  readonly #maxAgeMs: number;
  #value: Record<JobStatus, number> | undefined;
  #takenAt = Number.NEGATIVE_INFINITY;
  #running: Promise<Record<JobStatus, number>> | undefined;

  /**
   * @param maxAgeMs - how long a count is reused, in ms @defaultValue {@link DEFAULT_STATUS_COUNT_MAX_AGE_MS}
   * @throws RangeError when `maxAgeMs` is negative or not finite
   */
  constructor(store: Pick<Store, 'countByStatus'>, maxAgeMs = DEFAULT_STATUS_COUNT_MAX_AGE_MS) {
    if (!Number.isFinite(maxAgeMs) || maxAgeMs < 0) {
      throw new RangeError(`maxAgeMs must be a finite number >= 0 (got ${maxAgeMs})`);
    }
    this.#store = store;
    this.#maxAgeMs = maxAgeMs;
  }

  /** Queries run so far (for tests of the reuse). */
  queries = 0;

  /** The counts, from the last query when it is younger than `maxAgeMs`, else from a new one. */
  async get(): Promise<Record<JobStatus, number>> {
    if (this.#value && performance.now() - this.#takenAt < this.#maxAgeMs) return this.#value;
    this.#running ??= (async () => {
      try {
        this.queries += 1;
        const value = await this.#store.countByStatus();
        this.#value = value;
        this.#takenAt = performance.now();
        return value;
      } finally {
        this.#running = undefined;
      }
    })();
    return this.#running;
  }
}

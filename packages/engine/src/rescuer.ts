import type { Logger } from '@nudge/core';
import type { RecoveredJob, Store } from '@nudge/store';
import type { EmitEngineEvent } from './engine-events.js';
import type { RescueResult } from './service-results.js';

export type { RescueResult } from './service-results.js';

const MAX_PASSES = 1000;

/** Options of a {@link Rescuer}. */
export interface RescuerOptions {
  readonly store: Store;
  readonly logger: Logger;
  readonly emit: EmitEngineEvent;
  /** Least time between two sweeps of this instance, in ms. */
  readonly sweepIntervalMs: number;
  /** Lease length, in ms: a lease taken after a look at the leases expires no sooner than this. */
  readonly leaseMs: number;
  /** Rows per page; a sweep pages until a page comes back short. @defaultValue 2000 */
  readonly pageSize?: number;
  /** Retry delay in ms of a job whose lease expired after `attempts` attempts. */
  readonly retryDelayMs: (job: { kind: string; attempts: number }) => number;
  /** Jobs were put back to wait for a retry. */
  readonly onRequeued: () => void;
  /**
   * Whether this instance's own heartbeats are getting through. While they are not (an outage),
   * a due sweep waits: its own running jobs' leases may have lapsed only because it could not
   * renew them, and must not be swept from under it once the database is back.
   */
  readonly ownLeasesRenewed: () => boolean;
}

/**
 * The recovery sweep: puts `RUNNING` rows whose lease expired (on any instance) back to wait for
 * a retry, or to `FAILED` when their attempts are used up. One run pages through every expired
 * lease, so 20,000 of them are recovered in ten passes of 2,000.
 *
 * It sweeps when a lease can have expired, not on a fixed timer: each look at the leases (a sweep,
 * or the safety poll's promotion, through {@link observe}) tells when the earliest one expires,
 * and a lease taken after that look expires no sooner than `leaseMs` later. So it sleeps until
 * `sweepIntervalMs` after that expiry (the grace a fixed timer gave a holder renewing late), or
 * `leaseMs + sweepIntervalMs` after the look when none is held, and never sweeps twice within
 * `sweepIntervalMs`: a lease whose holder stopped is recovered within `sweepIntervalMs` of its
 * expiry, and an idle cluster sweeps only when its safety polls are further apart than
 * `leaseMs + sweepIntervalMs`.
 */
export class Rescuer {
  readonly #options: RescuerOptions;
  #timer: NodeJS.Timeout | undefined;
  #started = false;
  #sweeping: Promise<RescueResult> | undefined;
  /** When the last sweep began, on the `performance.now()` clock, in ms. */
  #lastSweepAt = Number.NEGATIVE_INFINITY;

  constructor(options: RescuerOptions) {
    this.#options = options;
  }

  readonly name = 'rescuer';

  /** Sweeps at once (an instance starting after a crash recovers what it left), then as leases expire. */
  start(): void {
    this.#started = true;
    this.#arm(0);
  }

  stop(): void {
    this.#started = false;
    clearTimeout(this.#timer);
  }

  /**
   * A look at the leases, just now: the earliest held one expires in `nextLeaseExpiryInMs` (ms;
   * negative once expired), or none is held (`null`). Re-arms the sweep for a sweep interval
   * after that expiry, or for `leaseMs + sweepIntervalMs` from now when none is held; a newer
   * look replaces an older one, since heartbeats move expiries later.
   */
  observe(nextLeaseExpiryInMs: number | null): void {
    if (!this.#started || this.#sweeping) return;
    // A sweep interval after the expiry, as a sweep on a fixed timer would at worst: a holder
    // renewing a little late (a busy event loop or connection) keeps its job. A lease taken after
    // this look expires no sooner than leaseMs from now, so looking again by then plus the sweep
    // interval keeps the same bound (the safety poll usually looks first).
    const { leaseMs, sweepIntervalMs } = this.#options;
    const unseen = leaseMs + sweepIntervalMs;
    const expiresIn =
      nextLeaseExpiryInMs === null ? unseen : Math.min(nextLeaseExpiryInMs + sweepIntervalMs, unseen);
    const spacing = this.#lastSweepAt + sweepIntervalMs - performance.now();
    this.#arm(Math.max(0, expiresIn, spacing));
  }

  /** One sweep, now, through every expired lease. */
  async runOnce(): Promise<RescueResult> {
    while (this.#sweeping) await this.#sweeping.catch(() => undefined);
    const run = this.#sweep().finally(() => {
      if (this.#sweeping === run) this.#sweeping = undefined;
    });
    this.#sweeping = run;
    return run;
  }

  #arm(delayMs: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      if (!this.#options.ownLeasesRenewed()) {
        this.#arm(this.#options.sweepIntervalMs);
        return;
      }
      this.runOnce().then(
        (result) => this.observe(result.nextLeaseExpiryInMs),
        (error: unknown) => {
          this.#options.logger.error({ err: error }, 'sweep failed');
          this.observe(0);
        },
      );
    }, delayMs);
  }

  async #sweep(): Promise<RescueResult> {
    this.#lastSweepAt = performance.now();
    const limit = this.#options.pageSize ?? 2000;
    let requeued = 0;
    let failed = 0;
    let passes = 0;
    let nextLeaseExpiryInMs: number | null = null;
    const recovered: RecoveredJob[] = [];
    for (;;) {
      const page = await this.#options.store.sweepExpired({
        retryDelayMs: this.#options.retryDelayMs,
        limit,
      });
      passes += 1;
      requeued += page.requeued;
      failed += page.failed;
      nextLeaseExpiryInMs = page.nextLeaseExpiryInMs;
      recovered.push(...page.recovered);
      // A bound, in case other instances keep producing expired leases as fast as this pages. Rows
      // the database refused count as handled (their leases were pushed back); a page of nothing
      // but such rows ends the run, in case pushing them back was refused too.
      const recoveredNow = page.requeued + page.failed;
      if (recoveredNow + page.isolated < limit || recoveredNow === 0 || passes >= MAX_PASSES) break;
    }
    const result = { requeued, failed, passes, recovered, nextLeaseExpiryInMs };
    this.#options.emit('sweep:done', result);
    if (requeued + failed > 0) {
      this.#options.logger.info({ requeued, failed, passes }, 'recovered jobs with expired leases');
    }
    if (requeued > 0) this.#options.onRequeued();
    return result;
  }
}

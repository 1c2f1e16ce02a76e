import type { Logger } from '@nudge/core';
import type { RecoveredJob, Store } from '@nudge/store';
import type { EmitEngineEvent } from './engine-events.js';
import type { RescueResult } from './service-results.js';

export type { RescueResult } from './service-results.js';
import { PeriodicTimer } from './periodic-timer.js';

const MAX_PASSES = 1000;

/** Options of a {@link Rescuer}. */
export interface RescuerOptions {
  readonly store: Store;
  readonly logger: Logger;
  readonly emit: EmitEngineEvent;
  /** Time between sweeps, in ms. */
  readonly sweepIntervalMs: number;
  /** Rows per page; a sweep pages until a page comes back short. @defaultValue 2000 */
  readonly pageSize?: number;
  /** Retry delay in ms of a job whose lease expired after `attempts` attempts. */
  readonly retryDelayMs: (job: { kind: string; attempts: number }) => number;
  /** Jobs were put back to wait for a retry. */
  readonly onRequeued: () => void;
}

/**
 * The recovery sweep: puts `RUNNING` rows whose lease expired (on any instance) back to wait for
 * a retry, or to `FAILED` when their attempts are used up. One run pages through every expired
 * lease, so 20,000 of them are recovered in ten passes of 2,000.
 */
export class Rescuer {
  readonly #options: RescuerOptions;
  readonly #timer: PeriodicTimer;

  constructor(options: RescuerOptions) {
    this.#options = options;
    this.#timer = new PeriodicTimer(
      () => this.runOnce(),
      options.sweepIntervalMs,
      (error) => options.logger.error({ err: error }, 'sweep failed'),
    );
  }

  /** Sweeps at once (an instance starting after a crash recovers what it left), then every interval. */
  start(): void {
    this.#timer.start(0);
  }

  stop(): void {
    this.#timer.stop();
  }

  /** One sweep, now, through every expired lease. */
  async runOnce(): Promise<RescueResult> {
    const limit = this.#options.pageSize ?? 2000;
    let requeued = 0;
    let failed = 0;
    let passes = 0;
    const recovered: RecoveredJob[] = [];
    for (;;) {
      const page = await this.#options.store.sweepExpired({
        retryDelayMs: this.#options.retryDelayMs,
        limit,
      });
      passes += 1;
      requeued += page.requeued;
      failed += page.failed;
      recovered.push(...page.recovered);
      // A bound, in case other instances keep producing expired leases as fast as this pages.
      if (page.requeued + page.failed < limit || passes >= MAX_PASSES) break;
    }
    const result = { requeued, failed, passes, recovered };
    this.#options.emit('sweep:done', result);
    if (requeued + failed > 0) {
      this.#options.logger.info({ requeued, failed, passes }, 'recovered jobs with expired leases');
    }
    if (requeued > 0) this.#options.onRequeued();
    return result;
  }
}

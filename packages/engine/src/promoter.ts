import type { Logger } from '@nudge/core';
import type { Store } from '@nudge/store';
import { EarliestTimer } from './earliest-timer.js';
import type { EmitEngineEvent } from './engine-events.js';
import type { ScheduleResult } from './service-results.js';

export type { ScheduleResult } from './service-results.js';

/** Longest single sleep, in ms (an hour). */
const MAX_SLEEP_MS = 3_600_000;

/** Options of a {@link Promoter}. */
export interface PromoterOptions {
  readonly store: Store;
  readonly logger: Logger;
  readonly emit: EmitEngineEvent;
  /** Rows per page; a run pages until a page comes back short. @defaultValue 1000 */
  readonly pageSize?: number;
  /** Jobs became due. */
  readonly onPromoted: () => void;
  /**
   * Each run also reads when the earliest lease of any instance expires, in ms from now (`null`:
   * no job is running): the rescuer sleeps until then.
   */
  readonly onLeaseExpiry: (nextLeaseExpiryInMs: number | null) => void;
}

/**
 * Makes `SCHEDULED` jobs `PENDING` once their `run_at` has passed (database clock), so that the
 * claim index holds only runnable work. It sleeps until the next `run_at` it knows of (each run
 * tells it), or until this instance schedules a retry ({@link wakeIn}); rows scheduled elsewhere
 * are found by the engine's safety poll, which runs it too ({@link runOnce}).
 */
export class Promoter {
  readonly #options: PromoterOptions;
  // A failed run is tried again by the next safety poll.
  readonly #wake = new EarliestTimer(() => {
    this.runOnce().catch((error: unknown) =>
      this.#options.logger.error({ err: error }, 'promoting scheduled jobs failed'),
    );
  });
  #running: Promise<ScheduleResult> | undefined;
  #started = false;

  constructor(options: PromoterOptions) {
    this.#options = options;
  }

  readonly name = 'promoter';

  /** Runs at once, then sleeps until the next `run_at` it learns of. */
  start(): void {
    this.#started = true;
    this.#wake.within(0);
  }

  /** Stops waking; a run in progress finishes. */
  stop(): void {
    this.#started = false;
    this.#wake.cancel();
  }

  /** A row will come due in `delayMs`: run then, unless a run comes earlier anyway. */
  wakeIn(delayMs: number): void {
    // Capped well below setTimeout's 2^31 - 1 ms limit; the safety poll runs long before anyway.
    if (this.#started) this.#wake.within(Math.min(Math.max(0, delayMs), MAX_SLEEP_MS));
  }

  /** One run, now (after a run in progress, so nothing scheduled before the call is missed). */
  async runOnce(): Promise<ScheduleResult> {
    while (this.#running) await this.#running.catch(() => undefined);
    const run = this.#promote().finally(() => {
      if (this.#running === run) this.#running = undefined;
    });
    this.#running = run;
    return run;
  }

  async #promote(): Promise<ScheduleResult> {
    const limit = this.#options.pageSize ?? 1000;
    let promoted = 0;
    let timedOut = 0;
    for (;;) {
      const page = await this.#options.store.promoteScheduled({ limit });
      promoted += page.promoted;
      timedOut += page.timedOut ?? 0;
      // Rows the database refused count as handled (their run_at was moved later); a page of
      // nothing but such rows ends the run, in case moving them was refused too.
      if (page.promoted + page.isolated < limit || page.promoted === 0) {
        const { nextDueInMs, runnable, nextLeaseExpiryInMs } = page;
        const result = {
          promoted,
          ...(timedOut > 0 ? { timedOut } : {}),
          nextDueInMs,
          runnable,
          nextLeaseExpiryInMs,
        };
        this.#options.emit('schedule:done', result);
        this.#options.onLeaseExpiry(nextLeaseExpiryInMs);
        if (promoted + timedOut > 0) this.#options.onPromoted();
        // A few ms late rather than early: the row must be due by the database clock when we look.
        if (nextDueInMs !== null) this.wakeIn(nextDueInMs + 1);
        return result;
      }
    }
  }
}

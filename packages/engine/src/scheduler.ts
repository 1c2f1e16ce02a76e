import type { Logger } from '@nudge/core';
import type { Store } from '@nudge/store';
import { jittered } from './engine-options.js';
import type { EmitEngineEvent } from './engine-events.js';
import type { ScheduleResult } from './service-results.js';

export type { ScheduleResult } from './service-results.js';

/** Options of a {@link Scheduler}. */
export interface SchedulerOptions {
  readonly store: Store;
  readonly logger: Logger;
  readonly emit: EmitEngineEvent;
  /** Longest time between runs, in ms (jittered ±10 %): it notices rows scheduled by others. */
  readonly pollIntervalMs: number;
  /** Rows per page; a run pages until a page comes back short. @defaultValue 1000 */
  readonly pageSize?: number;
  /** Jobs became due. */
  readonly onPromoted: () => void;
}

/**
 * Makes `SCHEDULED` jobs `PENDING` once their `run_at` has passed (database clock), so that the
 * claim index holds only runnable work. It runs when the next known row comes due (the store
 * tells it when), when this instance schedules a retry ({@link wakeIn}), and at least every poll
 * interval for rows scheduled elsewhere.
 */
export class Scheduler {
  readonly #options: SchedulerOptions;
  #timer: NodeJS.Timeout | undefined;
  #nextRunAt = Number.POSITIVE_INFINITY;
  #running: Promise<ScheduleResult> | undefined;
  #started = false;

  constructor(options: SchedulerOptions) {
    this.#options = options;
  }

  start(): void {
    this.#started = true;
    this.#schedule(0);
  }

  stop(): void {
    this.#started = false;
    clearTimeout(this.#timer);
    this.#nextRunAt = Number.POSITIVE_INFINITY;
  }

  /** A row will come due in `delayMs`: run then, unless a run comes earlier anyway. */
  wakeIn(delayMs: number): void {
    if (this.#started) this.#schedule(Math.max(0, delayMs));
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
    let nextDueInMs: number | null = null;
    for (;;) {
      const page = await this.#options.store.promoteScheduled({ limit });
      promoted += page.promoted;
      nextDueInMs = page.nextDueInMs;
      if (page.promoted < limit) break;
    }
    const result = { promoted, nextDueInMs };
    this.#options.emit('schedule:done', result);
    if (promoted > 0) this.#options.onPromoted();
    return result;
  }

  #schedule(delayMs: number): void {
    const at = performance.now() + delayMs;
    if (at >= this.#nextRunAt) return;
    clearTimeout(this.#timer);
    this.#nextRunAt = at;
    this.#timer = setTimeout(() => {
      this.#nextRunAt = Number.POSITIVE_INFINITY;
      this.runOnce().then(
        (result) => this.#afterRun(result.nextDueInMs),
        (error: unknown) => {
          this.#options.logger.error({ err: error }, 'promoting scheduled jobs failed');
          this.#afterRun(null);
        },
      );
    }, delayMs);
  }

  #afterRun(nextDueInMs: number | null): void {
    if (!this.#started) return;
    const poll = jittered(this.#options.pollIntervalMs);
    // A few ms late rather than early: the row must be due by the database clock when we look.
    this.#schedule(nextDueInMs === null ? poll : Math.min(poll, nextDueInMs + 1));
  }
}

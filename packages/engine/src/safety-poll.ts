import { EarliestTimer } from './earliest-timer.js';
import { jittered } from './engine-options.js';

/** Options of a {@link SafetyPoll}. */
export interface SafetyPollOptions {
  /** Interval after a sign of work, and always while no listener is healthy, in ms. */
  readonly shortMs: number;
  /** Longest interval an idle instance backs off to while its listener is healthy, in ms. */
  readonly idleMaxMs: number;
  /** One poll; its rejection goes to `onError`, and the next one comes after `shortMs`. */
  readonly poll: () => Promise<unknown>;
  readonly onError: (error: unknown) => void;
}

/**
 * The poll that makes notifications a hint rather than the guarantee: it finds jobs whose wake-up
 * was lost (a dropped notification, a row inserted while the listener reconnected, a producer that
 * never nudged). While the new-jobs listener is healthy and nothing happens, the interval doubles
 * after each poll, from `shortMs` up to `idleMaxMs`; any sign of work ({@link workSeen}) brings it
 * back to `shortMs`. Without a healthy listener it polls every `shortMs`. So a job whose wake-up
 * was lost starts within `idleMaxMs` (plus 10 % jitter and the poll's own time), and an idle
 * instance polls about `60 000 / idleMaxMs` times a minute.
 */
export class SafetyPoll {
  readonly #options: SafetyPollOptions;
  #intervalMs: number;
  #listening = false;
  #running = false;
  #polling = false;
  readonly #timer = new EarliestTimer(() => void this.#run());

  constructor(options: SafetyPollOptions) {
    this.#options = options;
    this.#intervalMs = options.shortMs;
  }

  /** The interval the next poll is scheduled with, in ms (before jitter). */
  get intervalMs(): number {
    return this.#intervalMs;
  }

  readonly name = 'safety-poll';

  /** Polls after one short interval, then on the back-off. */
  start(): void {
    this.#running = true;
    this.#arm(this.#options.shortMs);
  }

  stop(): void {
    this.#running = false;
    this.#timer.cancel();
  }

  /** One poll, now, outside the back-off (its error is thrown, not passed to `onError`). */
  runOnce(): Promise<unknown> {
    return this.#options.poll();
  }

  /** Work showed up (a notification, a nudge, an enqueue, a claim that found jobs): poll soon again. */
  workSeen(): void {
    this.#intervalMs = this.#options.shortMs;
    this.#arm(this.#options.shortMs);
  }

  /**
   * Whether the new-jobs listener is listening now. Losing it brings the interval back to
   * `shortMs`, where it stays until the listener is back.
   */
  listening(healthy: boolean): void {
    this.#listening = healthy;
    if (!healthy) this.workSeen();
  }

  /** Arms the timer `delayMs` from now, unless it already fires sooner or a poll is running. */
  #arm(delayMs: number): void {
    if (!this.#running || this.#polling) return;
    this.#timer.within(jittered(delayMs));
  }

  async #run(): Promise<void> {
    this.#polling = true;
    // Doubled before the poll: a sign of work during it resets the interval for the next one.
    const used = this.#intervalMs;
    this.#intervalMs = this.#listening ? Math.min(used * 2, this.#options.idleMaxMs) : this.#options.shortMs;
    try {
      await this.#options.poll();
    } catch (error) {
      // The database may be back any moment: look again soon rather than after the back-off.
      this.#intervalMs = this.#options.shortMs;
      this.#options.onError(error);
    } finally {
      this.#polling = false;
      this.#arm(this.#intervalMs);
    }
  }
}

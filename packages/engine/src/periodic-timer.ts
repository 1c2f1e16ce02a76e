import { jittered } from './engine-options.js';

/**
 * Runs `task` every `intervalMs` (±`jitterRatio`), measured from the end of the previous run so
 * runs never overlap. Errors are the task's to handle; a rejection is passed to `onError`.
 */
export class PeriodicTimer {
  readonly #task: () => Promise<unknown>;
  readonly #intervalMs: number;
  readonly #jitterRatio: number;
  readonly #onError: (error: unknown) => void;
  #timer: NodeJS.Timeout | undefined;
  #running = false;

  constructor(
    task: () => Promise<unknown>,
    intervalMs: number,
    onError: (error: unknown) => void,
    jitterRatio = 0.1,
  ) {
    this.#task = task;
    this.#intervalMs = intervalMs;
    this.#onError = onError;
    this.#jitterRatio = jitterRatio;
  }

  /** Schedules the first run `firstDelayMs` from now (default: one interval). */
  start(firstDelayMs?: number): void {
    this.#running = true;
    this.#schedule(firstDelayMs);
  }

  /** Cancels the next run; a run in progress finishes. */
  stop(): void {
    this.#running = false;
    clearTimeout(this.#timer);
  }

  #schedule(delayMs?: number): void {
    if (!this.#running) return;
    this.#timer = setTimeout(
      () => {
        this.#task()
          .catch(this.#onError)
          .finally(() => this.#schedule());
      },
      delayMs ?? jittered(this.#intervalMs, this.#jitterRatio),
    );
  }
}

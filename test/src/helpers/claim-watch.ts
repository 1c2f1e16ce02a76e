import type { EventEmitter } from 'node:events';
import { setImmediate as afterMicrotasks } from 'node:timers/promises';

/**
 * Counts an engine's claim queries (`claim:query`) and their answers (`claim:claimed` or
 * `claim:empty`, one per query, also after a `claim:error`), so a test can wait until every
 * claim pass it caused has answered instead of sleeping.
 */
export class ClaimWatch {
  readonly #engine: EventEmitter;
  #queries = 0;
  #answers = 0;

  constructor(engine: EventEmitter) {
    this.#engine = engine;
    engine.on('claim:query', () => (this.#queries += 1));
    engine.on('claim:claimed', () => (this.#answers += 1));
    engine.on('claim:empty', () => (this.#answers += 1));
  }

  /** Claim queries so far. */
  get queries(): number {
    return this.#queries;
  }

  /**
   * Resolves once at least `atLeast` queries ran and every query has answered, with nothing left
   * to start: a pass owed to coalesced requests starts in the microtasks after the pass before
   * it ends, so the counts are checked again once those have run.
   * @throws Error after `timeoutMs` ms
   */
  async settled(atLeast = 1, timeoutMs = 15_000): Promise<void> {
    const done = (): boolean => this.#queries >= atLeast && this.#answers === this.#queries;
    for (;;) {
      if (!done()) await this.#nextAnswer(done, timeoutMs);
      await afterMicrotasks();
      if (done()) return;
    }
  }

  #nextAnswer(done: () => boolean, timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        // The answer's listener above runs first (registered first), so the counts are current.
        if (!done()) return;
        stop();
        resolve();
      };
      const timer = setTimeout(() => {
        stop();
        reject(
          new Error(
            `claims not settled after ${timeoutMs} ms (${this.#answers} of ${this.#queries} answered)`,
          ),
        );
      }, timeoutMs);
      const stop = (): void => {
        clearTimeout(timer);
        this.#engine.off('claim:claimed', check);
        this.#engine.off('claim:empty', check);
      };
      this.#engine.on('claim:claimed', check);
      this.#engine.on('claim:empty', check);
    });
  }
}

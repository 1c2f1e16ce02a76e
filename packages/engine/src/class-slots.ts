import type { ExecutionClass } from '@nudge/core';

/**
 * Slots of each execution class held for jobs not started yet: by a claim in flight, an insert
 * that claims for itself, or a re-claim waiting for its older attempt to end. The twin of
 * `QueueSlots`, per class: a pool's free places minus what is held here can be taken.
 */
export class ClassSlots {
  readonly #held = new Map<ExecutionClass, number>();

  /** Slots of `execution` held. */
  held(execution: ExecutionClass): number {
    return this.#held.get(execution) ?? 0;
  }

  /** Holds `count` more slots of `execution`. */
  hold(execution: ExecutionClass, count: number): void {
    if (count > 0) this.#held.set(execution, this.held(execution) + count);
  }

  /** Ends the hold of `count` slots of `execution` (a job started, or the hold was given back). */
  release(execution: ExecutionClass, count: number): void {
    const next = this.held(execution) - count;
    if (next > 0) this.#held.set(execution, next);
    else this.#held.delete(execution);
  }
}

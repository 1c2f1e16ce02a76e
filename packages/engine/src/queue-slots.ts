/**
 * Per-queue counts of one instance, for queue caps: attempts running in each queue, and what is
 * held for claims in flight. A cap counts both, so two claims in flight never take more than it
 * allows together.
 */
export class QueueSlots {
  readonly #running = new Map<string, number>();
  readonly #held = new Map<string, number>();

  /**
   * Holds up to `count` of what is left of `queue`'s `cap` (its running attempts and other holds
   * count against it), unless `closed`.
   * @returns how many were held
   */
  hold(queue: string, cap: number, count: number, closed = false): number {
    const used = this.running(queue) + (this.#held.get(queue) ?? 0);
    const held = closed ? 0 : Math.max(0, Math.min(count, cap - used));
    if (held > 0) add(this.#held, queue, held);
    return held;
  }

  /** Ends a hold of {@link hold} (after the claimed jobs were started). */
  release(queue: string, count: number): void {
    add(this.#held, queue, -count);
  }

  /** An attempt of `queue` started. */
  started(queue: string): void {
    add(this.#running, queue, 1);
  }

  /** An attempt of `queue` ended. */
  ended(queue: string): void {
    add(this.#running, queue, -1);
  }

  /** Attempts of `queue` running. */
  running(queue: string): number {
    return this.#running.get(queue) ?? 0;
  }
}

function add(counts: Map<string, number>, queue: string, delta: number): void {
  const next = (counts.get(queue) ?? 0) + delta;
  if (next > 0) counts.set(queue, next);
  else counts.delete(queue);
}

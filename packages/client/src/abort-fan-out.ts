/**
 * One `abort` listener per signal, however many waits share it. `Promise.all(ids.map((id) =>
 * client.waitFor(id, { signal })))` is how producers wait on many jobs; one listener per wait
 * would pile dozens onto one signal (Node.js warns past 10, `MaxListenersExceededWarning`) and
 * grow with the number of jobs.
 */
export class AbortFanOut {
  readonly #subscribers = new Map<
    AbortSignal,
    { readonly callbacks: Set<() => void>; readonly onAbort: () => void }
  >();

  /**
   * Calls `callback` once when `signal` fires, unless the returned function was called first.
   * @returns the unsubscribe function; it removes the signal's listener with its last subscriber
   */
  subscribe(signal: AbortSignal, callback: () => void): () => void {
    let entry = this.#subscribers.get(signal);
    if (!entry) {
      const callbacks = new Set<() => void>();
      const onAbort = (): void => {
        this.#subscribers.delete(signal);
        for (const call of [...callbacks]) call();
      };
      entry = { callbacks, onAbort };
      this.#subscribers.set(signal, entry);
      signal.addEventListener('abort', onAbort, { once: true });
    }
    const { callbacks, onAbort } = entry;
    callbacks.add(callback);
    return () => {
      if (!callbacks.delete(callback) || callbacks.size > 0) return;
      signal.removeEventListener('abort', onAbort);
      this.#subscribers.delete(signal);
    };
  }
}

import type { NewJobsListener, Store } from '@nudge/store';
import type { EmitEngineEvent } from './engine-events.js';

/** Options of a {@link NewJobsWaker}. */
export interface NewJobsWakerOptions {
  readonly store: Store;
  /** Off: rely on polling and `POST /nudge` alone. */
  readonly listen: boolean;
  readonly emit: EmitEngineEvent;
  /** The claim trigger, coalesced: a burst of wakes costs a bounded number of claim passes. */
  readonly requestClaim: () => void;
  /** The listener is listening now (`true`), or lost its connection (`false`). */
  readonly onListening: (healthy: boolean) => void;
}

/**
 * Wakes the claimer when a producer inserts runnable jobs, through the store's listener
 * (PostgreSQL `LISTEN/NOTIFY`; SQLite: another connection's commit, seen through
 * `PRAGMA data_version`), so a plain `INSERT` starts without `POST /nudge` or the poll. Does
 * nothing on a store that cannot listen, or with `listen` off.
 */
export class NewJobsWaker {
  readonly #options: NewJobsWakerOptions;
  #listener: NewJobsListener | undefined;
  #closing: Promise<void> = Promise.resolve();

  constructor(options: NewJobsWakerOptions) {
    this.#options = options;
  }

  readonly name = 'new-jobs-waker';

  /** Opens the listener, when the store can listen and `listen` is on. */
  start(): void {
    const { store, listen, emit, requestClaim, onListening } = this.#options;
    if (!listen || !store.capabilities.supportsListen || !store.listenForNewJobs || this.#listener) return;
    this.#listener = store.listenForNewJobs({
      onWake: () => {
        emit('listen:wake', {});
        requestClaim();
      },
      onReady: (reconnected) => {
        emit('listen:ready', { reconnected });
        onListening(true);
      },
      onLost: () => {
        emit('listen:lost', {});
        onListening(false);
      },
    });
  }

  /** Stops listening; resolves, as {@link closed} does, once the connection is closed. */
  stop(): Promise<void> {
    const listener = this.#listener;
    this.#listener = undefined;
    if (listener) this.#closing = listener.close();
    return this.#closing;
  }

  /**
   * Acts as one notification would: requests a claim. A test stands in for `NOTIFY` with it.
   * @returns whether a listener is open
   */
  runOnce(): Promise<boolean> {
    this.#options.requestClaim();
    return Promise.resolve(this.#listener !== undefined);
  }

  /** Resolves once the last {@link stop} has closed the listener's connection. */
  closed(): Promise<void> {
    return this.#closing;
  }
}

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

  start(): void {
    const { store, listen, emit, requestClaim } = this.#options;
    if (!listen || !store.capabilities.supportsListen || !store.listenForNewJobs || this.#listener) return;
    this.#listener = store.listenForNewJobs({
      onWake: () => {
        emit('listen:wake', {});
        requestClaim();
      },
      onReady: (reconnected) => emit('listen:ready', { reconnected }),
      onLost: () => emit('listen:lost', {}),
    });
  }

  /** Stops listening; {@link closed} resolves once the connection is closed. */
  stop(): void {
    const listener = this.#listener;
    this.#listener = undefined;
    if (listener) this.#closing = listener.close();
  }

  /** Resolves once the last {@link stop} has closed the listener's connection. */
  closed(): Promise<void> {
    return this.#closing;
  }
}

import type Database from 'better-sqlite3';
import { MAX_TIMER_MS, type Logger } from '@nudge/core';
import type { NewJobsHandlers, NewJobsListener } from '../store.js';

/** Options of {@link SqliteChangeWatcher}. */
export interface SqliteChangeWatcherOptions {
  /** Time between two reads of `PRAGMA data_version`, in ms: a whole number from 1. */
  readonly intervalMs: number;
  /** Where a failed read and the recovery are logged. */
  readonly logger: Logger;
}

/**
 * Wakes on writes by other connections to the SQLite file (another process's producer, another
 * nudge instance): every `intervalMs` it reads `PRAGMA data_version` on the store's own
 * connection, and calls `onWake` when the value changed since the last read. SQLite changes that
 * value on a connection when another connection commits a change to the database, never for the
 * connection's own commits (https://sqlite.org/pragma.html#pragma_data_version), so the store's
 * own writes wake nothing, and neither does a write transaction that changed nothing (an empty
 * claim's `BEGIN IMMEDIATE … COMMIT`: no page is written, so two idle instances on one file do
 * not wake each other). Any committed change wakes, not only new jobs: a wake is a hint.
 *
 * Each read is one prepared statement on that connection: in WAL mode SQLite compares the
 * change counter in the shared-memory index (`-shm`) and reads no page of the file (measured on
 * Linux: two `fcntl` lock calls and one `fstat`, about 6 µs).
 *
 * Like the PostgreSQL listener, the first successful read calls `onReady(false)` and `onWake`
 * once (writes before it were not watched). A read that fails (another connection holding an
 * exclusive lock past the connection's busy timeout) calls `onLost` once per streak and logs it;
 * the next successful read calls `onReady(true)` and `onWake`. Once the store has closed its
 * connection, the watcher stops without a call. The timer is unref'd: it never keeps the process
 * alive.
 */
export class SqliteChangeWatcher implements NewJobsListener {
  readonly #db: Database.Database;
  readonly #handlers: NewJobsHandlers;
  readonly #logger: Logger;
  readonly #read: Database.Statement<[], number>;
  readonly #first: NodeJS.Immediate;
  readonly #timer: NodeJS.Timeout;
  #version: number | undefined;
  #listening = false;
  #readies = 0;
  #failures = 0;
  #closed = false;

  /**
   * Starts watching `db`, the connection the store writes on (a second connection would see the
   * store's own writes as foreign). The first read comes on the next turn of the event loop.
   * @throws RangeError when `options.intervalMs` is not a whole number from 1 to 2^31 - 1
   */
  constructor(db: Database.Database, handlers: NewJobsHandlers, options: SqliteChangeWatcherOptions) {
    const { intervalMs } = options;
    if (!Number.isInteger(intervalMs) || intervalMs < 1 || intervalMs > MAX_TIMER_MS) {
      throw new RangeError(
        `intervalMs must be a whole number of ms from 1 to ${MAX_TIMER_MS} (got ${String(intervalMs)})`,
      );
    }
    this.#db = db;
    this.#handlers = handlers;
    this.#logger = options.logger;
    this.#read = db.prepare<[], number>('PRAGMA data_version').pluck();
    this.#first = setImmediate(() => this.check());
    this.#first.unref();
    this.#timer = setInterval(() => this.check(), intervalMs);
    this.#timer.unref();
  }

  /** Reads `PRAGMA data_version` now and calls the handlers; what the timer calls. */
  check(): void {
    if (this.#closed) return;
    if (!this.#db.open) {
      this.#stop();
      return;
    }
    let version: number;
    try {
      version = this.#read.get() as number;
    } catch (error) {
      this.#lose(error);
      return;
    }
    const changed = this.#version !== undefined && version !== this.#version;
    this.#version = version;
    if (this.#listening) {
      if (changed) this.#handlers.onWake();
      return;
    }
    if (this.#failures > 0) this.#logger.info({ failures: this.#failures }, 'change watcher reads again');
    this.#listening = true;
    this.#failures = 0;
    this.#readies += 1;
    this.#handlers.onReady?.(this.#readies > 1);
    this.#handlers.onWake();
  }

  #lose(error: unknown): void {
    this.#listening = false;
    this.#failures += 1;
    if (this.#failures > 1) return;
    this.#logger.warn(
      { err: error },
      'change watcher could not read PRAGMA data_version; polling continues, retrying',
    );
    this.#handlers.onLost?.();
  }

  #stop(): void {
    this.#closed = true;
    clearImmediate(this.#first);
    clearInterval(this.#timer);
  }

  /** Stops the timer; no handler is called after it. */
  close(): Promise<void> {
    this.#stop();
    return Promise.resolve();
  }
}

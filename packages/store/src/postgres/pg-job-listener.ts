import pg from 'pg';
import type { Logger } from '@nudge/core';
import type { NewJobsHandlers, NewJobsListener } from '../store.js';

/** The channel migration 0003's trigger notifies. */
export const NEW_JOBS_CHANNEL = 'nudge_jobs';

/** First wait before reconnecting, in ms; doubled per failure up to {@link MAX_RETRY_MS}. */
const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 5000;

/** Options of {@link PgJobListener}. */
export interface PgJobListenerOptions {
  /** Longest wait for the connection, in ms. */
  readonly connectTimeoutMs: number;
  readonly logger: Logger;
}

/**
 * `LISTEN nudge_jobs` on a dedicated session connection (a transaction-mode pooler cannot hold
 * one). Each notification calls `onWake`. When the connection drops or fails to open, it retries
 * after 100 ms, doubling up to 5 s, logging the first failure of a streak and the recovery;
 * every (re)connection wakes once, since notifications sent meanwhile are lost.
 */
export class PgJobListener implements NewJobsListener {
  readonly #connectionString: string;
  readonly #handlers: NewJobsHandlers;
  readonly #options: PgJobListenerOptions;
  #client: pg.Client | undefined;
  #closed = false;
  #failures = 0;
  #connects = 0;
  #retry: NodeJS.Timeout | undefined;

  constructor(connectionString: string, handlers: NewJobsHandlers, options: PgJobListenerOptions) {
    this.#connectionString = connectionString;
    this.#handlers = handlers;
    this.#options = options;
    void this.#connect();
  }

  async #connect(): Promise<void> {
    this.#retry = undefined;
    if (this.#closed) return;
    const client = new pg.Client({
      connectionString: this.#connectionString,
      connectionTimeoutMillis: this.#options.connectTimeoutMs,
      keepAlive: true,
    });
    this.#client = client;
    let dropped = false;
    const drop = (error?: Error): void => {
      if (dropped) return;
      dropped = true;
      client.removeAllListeners('notification');
      void client.end().catch(() => undefined);
      if (this.#client === client) this.#client = undefined;
      this.#scheduleRetry(error);
    };
    client.on('error', drop);
    client.on('end', () => drop());
    client.on('notification', () => this.#handlers.onWake());
    try {
      await client.connect();
      await client.query(`LISTEN ${NEW_JOBS_CHANNEL}`);
    } catch (error) {
      drop(error as Error);
      return;
    }
    if (this.#closed) {
      await client.end().catch(() => undefined);
      return;
    }
    if (this.#failures > 0)
      this.#options.logger.info({ failures: this.#failures }, 'job listener reconnected');
    this.#failures = 0;
    this.#connects += 1;
    this.#handlers.onReady?.(this.#connects > 1);
    this.#handlers.onWake();
  }

  #scheduleRetry(error: Error | undefined): void {
    if (this.#closed || this.#retry) return;
    if (this.#failures === 0) this.#handlers.onLost?.();
    if (this.#failures === 0) {
      this.#options.logger.warn(
        { err: error },
        'job listener lost its connection; polling continues, retrying',
      );
    }
    const delay = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** this.#failures);
    this.#failures += 1;
    this.#retry = setTimeout(() => void this.#connect(), delay);
    this.#retry.unref();
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retry) clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = undefined;
    if (client) {
      client.removeAllListeners('notification');
      await client.end().catch(() => undefined);
    }
  }
}

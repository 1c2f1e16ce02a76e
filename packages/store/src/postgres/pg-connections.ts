import type pg from 'pg';
import type { Logger } from '@nudge/core';
import { probePooler, type PoolerProbeResult } from './pg-pooler-probe.js';
import { createPgPool } from './pg-pool.js';

/** Settings of {@link PgConnections}. */
export interface PgConnectionsOptions {
  /** Most connections of the main pool. */
  readonly max: number;
  /** Longest wait for a new connection, in ms. */
  readonly connectTimeoutMs: number;
  /** Longest a query may take, in ms. */
  readonly queryTimeoutMs: number;
  readonly logger: Logger;
  /**
   * Named prepared statements: `true` or `false` as given, or `undefined` to use them unless a
   * pooler is found between this process and the server. `false` also declares a transaction
   * pooler: no session settings are sent and no probe runs.
   */
  readonly preparedStatements: boolean | undefined;
  /** A direct connection (no pooler) for `LISTEN`; without one, `LISTEN` is off behind a pooler. */
  readonly listenUrl: string | undefined;
}

/** How the store reaches PostgreSQL, settled once before its first query. */
export interface PgConnectionMode {
  /** A transaction pooler sits in between: declared, or found by {@link probePooler}. */
  readonly pooled: boolean;
  /** Queries given a name become prepared statements. */
  readonly namedStatements: boolean;
  /** Where `LISTEN` connects, or `undefined` when it cannot work. */
  readonly listenUrl: string | undefined;
}

/** The store's three pools, and the mode they were opened in. */
export interface PgPools {
  readonly mode: PgConnectionMode;
  /** Durable commits: enqueues, sweeps, reads. */
  readonly main: pg.Pool;
  /** Claims: durable commits, rows found by index only (see `BY_INDEX_OPTIONS`). */
  readonly claims: pg.Pool;
  /**
   * Outcome writes and heartbeats: `synchronous_commit = off` when reached directly, rows found
   * by index only.
   */
  readonly outcomes: pg.Pool;
}

const OUTCOME_CONNECTIONS = 3;

/** The engine runs at most two claims at once (its claim trigger); a third would wait. */
const CLAIM_CONNECTIONS = 2;

/**
 * Opens the store's pools on first use, after settling how the server is reached: directly, or
 * through a transaction pooler (PgBouncer in `pool_mode = transaction`, and the managed poolers
 * that behave like it). Behind a pooler no session state can be relied on, so the pools send no
 * session settings and, unless told otherwise, no named prepared statements, and `LISTEN` needs a
 * direct connection of its own. Finding a pooler is logged once, at `info`.
 *
 * A probe that fails (the database is down) is not remembered: the next use probes again.
 */
export class PgConnections {
  readonly #connectionString: string;
  readonly #options: PgConnectionsOptions;
  #pools: Promise<PgPools> | undefined;
  #opened: PgPools | undefined;
  #closed = false;

  constructor(connectionString: string, options: PgConnectionsOptions) {
    this.#connectionString = connectionString;
    this.#options = options;
  }

  /** The pools, opened on the first call. @throws Error when the store is closed, or the probe's connection fails */
  pools(): Promise<PgPools> {
    if (this.#closed) return Promise.reject(new Error('the PostgreSQL store is closed'));
    this.#pools ??= this.#open().catch((error: unknown) => {
      this.#pools = undefined;
      throw error;
    });
    return this.#pools;
  }

  /** The main pool; see {@link pools}. */
  async main(): Promise<pg.Pool> {
    return this.#opened?.main ?? (await this.pools()).main;
  }

  /** The claim pool; see {@link pools}. */
  async claims(): Promise<pg.Pool> {
    return this.#opened?.claims ?? (await this.pools()).claims;
  }

  /** The outcome pool; see {@link pools}. */
  async outcomes(): Promise<pg.Pool> {
    return this.#opened?.outcomes ?? (await this.pools()).outcomes;
  }

  async #open(): Promise<PgPools> {
    const mode = await this.#settleMode();
    if (this.#closed) throw new Error('the PostgreSQL store is closed');
    const { max, connectTimeoutMs, queryTimeoutMs, logger } = this.#options;
    const common = {
      connectTimeoutMs,
      queryTimeoutMs,
      logger,
      sessionSettings: !mode.pooled,
      namedStatements: mode.namedStatements,
    };
    this.#opened = {
      mode,
      main: createPgPool(this.#connectionString, { ...common, max }),
      claims: createPgPool(this.#connectionString, { ...common, max: CLAIM_CONNECTIONS, byIndexOnly: true }),
      outcomes: createPgPool(this.#connectionString, {
        ...common,
        max: OUTCOME_CONNECTIONS,
        durableCommits: false,
        byIndexOnly: true,
      }),
    };
    return this.#opened;
  }

  async #settleMode(): Promise<PgConnectionMode> {
    const { preparedStatements, listenUrl, connectTimeoutMs, logger } = this.#options;
    const found: PoolerProbeResult | 'declared' =
      preparedStatements === false ? 'declared' : await probePooler(this.#connectionString, connectTimeoutMs);
    const pooled = found !== 'direct';
    const mode: PgConnectionMode = {
      pooled,
      namedStatements: preparedStatements ?? !pooled,
      listenUrl: listenUrl ?? (pooled ? undefined : this.#connectionString),
    };
    if (found === 'rejected' || found === 'dropped') {
      logger.info(
        { pooler: found, preparedStatements: mode.namedStatements, listen: mode.listenUrl !== undefined },
        `PostgreSQL is reached through a transaction pooler (it ${found} the session settings sent at connect): ` +
          `${mode.namedStatements ? 'prepared statements kept as configured' : 'no prepared statements'}, ` +
          `server-side timeouts and planner settings are the server's own, every commit is durable, and ` +
          `LISTEN is ${mode.listenUrl === undefined ? 'off (give a direct listenUrl to turn it on)' : 'on its direct listenUrl'}`,
      );
    }
    return mode;
  }

  /** Ends the pools; idempotent. Waits for a probe under way. */
  async close(): Promise<void> {
    this.#closed = true;
    const pools = await this.#pools?.catch(() => undefined);
    if (!pools) return;
    await Promise.all(
      [pools.main, pools.claims, pools.outcomes].filter((pool) => !pool.ended).map((pool) => pool.end()),
    );
  }
}

import type { Logger } from '@nudge/core';
import { PostgresStore } from './postgres/postgres-store.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import type { Store } from './store.js';

/** Options of {@link createStore}, for either dialect. */
export interface CreateStoreOptions {
  /**
   * Longest a database call may take, in ms: PostgreSQL's `statement_timeout` and client-side
   * query timeout, SQLite's busy timeout. @defaultValue 10000 (PostgreSQL), 5000 (SQLite)
   */
  readonly queryTimeoutMs?: number;
  /** Longest wait for a new PostgreSQL connection, in ms. @defaultValue 5000 */
  readonly connectTimeoutMs?: number;
  /** Where connection errors go. @defaultValue silent */
  readonly logger?: Logger;
  /**
   * PostgreSQL only: named prepared statements; `false` declares a transaction pooler in between.
   * @defaultValue undefined: on, unless a probe at first use finds a pooler (see `PostgresStoreOptions`)
   */
  readonly preparedStatements?: boolean;
  /** PostgreSQL only: a direct connection for `LISTEN` when `databaseUrl` goes through a pooler. */
  readonly listenUrl?: string;
}

/**
 * Opens the store a database URL names: `postgres://` or `postgresql://` selects PostgreSQL;
 * `sqlite:PATH`, `file:PATH` or a bare path selects a SQLite file. Does not migrate.
 *
 * @throws Error when a URL has another scheme or names no file
 */
export function createStore(databaseUrl: string, options: CreateStoreOptions = {}): Store {
  if (/^postgres(ql)?:\/\//i.test(databaseUrl)) return new PostgresStore(databaseUrl, options);
  const sqliteOptions = options.queryTimeoutMs === undefined ? {} : { busyTimeoutMs: options.queryTimeoutMs };
  return new SqliteStore(sqlitePath(databaseUrl), { ...sqliteOptions, logger: options.logger });
}

/**
 * The file path of a SQLite URL (`sqlite:./data/nudge.db`, `sqlite:///abs/path.db`,
 * `file:x.db` or a bare path).
 * @throws Error when the URL names no file or has another scheme
 */
export function sqlitePath(databaseUrl: string): string {
  const match = /^(sqlite|file):(\/\/)?(.*)$/i.exec(databaseUrl);
  const path = match ? (match[3] ?? '') : databaseUrl;
  if (!match && /^[a-z][a-z0-9+.-]*:\/\//i.test(databaseUrl)) {
    throw new Error(`unsupported database URL scheme in "${databaseUrl}": use postgres://… or sqlite:PATH`);
  }
  if (path.trim() === '') throw new Error(`database URL "${databaseUrl}" names no SQLite file`);
  return path;
}

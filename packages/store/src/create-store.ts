import { PostgresStore } from './postgres/postgres-store.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import type { Store } from './store.js';

/**
 * Opens the store a database URL names: `postgres://` or `postgresql://` selects PostgreSQL;
 * `sqlite:PATH`, `file:PATH` or a bare path selects a SQLite file. Does not migrate.
 *
 * @throws Error when a URL has another scheme or names no file
 */
export function createStore(databaseUrl: string): Store {
  if (/^postgres(ql)?:\/\//i.test(databaseUrl)) return new PostgresStore(databaseUrl);
  return new SqliteStore(sqlitePath(databaseUrl));
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

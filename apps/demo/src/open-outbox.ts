import type { Outbox } from './outbox.js';
import { PostgresOutbox } from './postgres-outbox.js';
import { SqliteOutbox } from './sqlite-outbox.js';

/**
 * Opens the outbox a database URL names, read the way the server reads it: `postgres://` or
 * `postgresql://` is PostgreSQL; `sqlite:PATH`, `sqlite:///abs/path`, `file:PATH` or a bare path
 * is a SQLite file.
 *
 * @throws Error when the URL has another scheme, names no file, or the SQLite file is missing
 */
export function openOutbox(databaseUrl: string): Outbox {
  if (/^postgres(ql)?:\/\//i.test(databaseUrl)) return new PostgresOutbox(databaseUrl);
  const match = /^(sqlite|file):(\/\/)?(.*)$/i.exec(databaseUrl);
  if (!match && /^[a-z][a-z0-9+.-]*:\/\//i.test(databaseUrl)) {
    throw new Error(`unsupported database URL scheme in "${databaseUrl}": use postgres://… or sqlite:PATH`);
  }
  const path = match ? (match[3] ?? '') : databaseUrl;
  if (path.trim() === '') throw new Error(`database URL "${databaseUrl}" names no SQLite file`);
  return new SqliteOutbox(path);
}

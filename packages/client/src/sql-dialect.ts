/** The two databases nudge stores jobs in. */
export type SqlDialect = 'postgres' | 'sqlite';

/** One statement for a driver: text with its dialect's placeholders, and the values to bind. */
export interface SqlQuery {
  readonly sql: string;
  readonly params: readonly unknown[];
}

/**
 * The database clock as SQLite stores times (`YYYY-MM-DDTHH:MM:SS.sssZ`), the same expression as
 * the store's `SQLITE_NOW` and the columns' defaults.
 */
export const SQLITE_NOW = `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`;

/** The SQLite database clock plus a bound number of ms, as stored text (the store's `sqliteNowPlus`). */
export const SQLITE_NOW_PLUS_MS = `strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '+' || (? / 1000.0) || ' seconds')`;

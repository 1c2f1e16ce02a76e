import { sqliteTime, sqliteTimeMinus, sqliteTimePlus } from '../sql/index.js';

/**
 * The store's SQLite clock, in SQL: `@now` is `NULL` in production; tests bind a fixed time to
 * travel without sleeping.
 */
export const STORE_CLOCK = `coalesce(@now, 'now')`;

/**
 * SQL for the database clock in SQLite, as stored text (`YYYY-MM-DDTHH:MM:SS.sssZ`).
 * SQLite holds `'now'` fixed for the whole statement, so every use within one statement agrees.
 */
export const SQLITE_NOW = sqliteTime(STORE_CLOCK);

/** The database clock plus a bound parameter of milliseconds, as stored text. */
export function sqliteNowPlus(msParam: string): string {
  return sqliteTimePlus(msParam, STORE_CLOCK);
}

/** The database clock minus a bound parameter of milliseconds, as stored text. */
export function sqliteNowMinus(msParam: string): string {
  return sqliteTimeMinus(msParam, STORE_CLOCK);
}

/**
 * SQL for the database clock in SQLite, as stored text (`YYYY-MM-DDTHH:MM:SS.sssZ`).
 * `@now` is `NULL` in production; tests bind a fixed time to travel without sleeping.
 * SQLite holds `'now'` fixed for the whole statement, so every use within one statement agrees.
 */
export const SQLITE_NOW = `strftime('%Y-%m-%dT%H:%M:%fZ', coalesce(@now, 'now'))`;

/** The database clock plus a bound parameter of milliseconds, as stored text. */
export function sqliteNowPlus(msParam: string): string {
  return `strftime('%Y-%m-%dT%H:%M:%fZ', coalesce(@now, 'now'), '+' || (${msParam} / 1000.0) || ' seconds')`;
}

/** The database clock minus a bound parameter of milliseconds, as stored text. */
export function sqliteNowMinus(msParam: string): string {
  return `strftime('%Y-%m-%dT%H:%M:%fZ', coalesce(@now, 'now'), '-' || (${msParam} / 1000.0) || ' seconds')`;
}

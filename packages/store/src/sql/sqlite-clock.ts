/**
 * How SQLite stores times: text that sorts as it ages (`YYYY-MM-DDTHH:MM:SS.sssZ`), the format of
 * every time column's default in the migrations.
 */
const SQLITE_TIME_FORMAT = '%Y-%m-%dT%H:%M:%fZ';

/**
 * The database clock as SQLite stores times. `clock` is SQL for the instant: `'now'` (SQLite
 * holds it fixed for the whole statement, so every use within one statement agrees), or an
 * expression such as the store's `coalesce(@now, 'now')`, which tests bind to travel in time.
 */
export function sqliteTime(clock = `'now'`): string {
  return `strftime('${SQLITE_TIME_FORMAT}', ${clock})`;
}

/** {@link sqliteTime} plus `msSql`, SQL for a number of ms (a placeholder or an expression). */
export function sqliteTimePlus(msSql: string, clock = `'now'`): string {
  return `strftime('${SQLITE_TIME_FORMAT}', ${clock}, '+' || (${msSql} / 1000.0) || ' seconds')`;
}

/** {@link sqliteTime} minus `msSql`, SQL for a number of ms. */
export function sqliteTimeMinus(msSql: string, clock = `'now'`): string {
  return `strftime('${SQLITE_TIME_FORMAT}', ${clock}, '-' || (${msSql} / 1000.0) || ' seconds')`;
}

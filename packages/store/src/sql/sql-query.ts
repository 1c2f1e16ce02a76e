/** The two databases nudge stores jobs in. */
export type SqlDialect = 'postgres' | 'sqlite';

/**
 * One statement for a driver: text with its dialect's placeholders (`$1, $2, …` on PostgreSQL,
 * `?` on SQLite), and the values to bind in order.
 */
export interface SqlQuery {
  readonly sql: string;
  readonly params: readonly unknown[];
}

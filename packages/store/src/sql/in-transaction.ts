/**
 * Runs `work` in a transaction on one connection, driver-free: `query` sends a statement on that
 * connection. `begin` opens it, `COMMIT` ends it when `work` resolves, and `ROLLBACK` when it
 * throws (a failed rollback is ignored: the connection's owner discards a broken connection).
 * The one place `BEGIN`, `COMMIT` and `ROLLBACK` are written for PostgreSQL, by the store and by
 * the client's SDK alike. (SQLite's transactions are better-sqlite3's `db.transaction()` and
 * Kysely's, which write their own.)
 * @param begin - the statement that opens it
 * @defaultValue `'BEGIN'`
 * @example
 * await inTransaction((sql) => client.query(sql), () => client.query('UPDATE …'));
 * @throws whatever `work` throws, after the rollback
 */
export async function inTransaction<T>(
  query: (sql: string) => Promise<unknown>,
  work: () => Promise<T>,
  begin = 'BEGIN',
): Promise<T> {
  await query(begin);
  try {
    const result = await work();
    await query('COMMIT');
    return result;
  } catch (error) {
    await query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

import type pg from 'pg';
import { inTransaction } from '../sql/index.js';

/**
 * Runs `fn` in a transaction on a connection of `pool` (see `inTransaction`); a connection that
 * failed mid-transaction is discarded, not reused.
 * @param begin - the statement that opens the transaction, such as
 *   `'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY'` for one snapshot
 * @defaultValue `'BEGIN'`
 * @throws whatever `fn` throws, after the rollback
 */
export async function pgTransaction<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient) => Promise<T>,
  begin = 'BEGIN',
): Promise<T> {
  const client = await pool.connect();
  let failure: Error | undefined;
  try {
    return await inTransaction(
      (sql) => client.query(sql),
      () => fn(client),
      begin,
    );
  } catch (error) {
    failure = error instanceof Error ? error : new Error(String(error));
    throw error;
  } finally {
    client.release(failure);
  }
}

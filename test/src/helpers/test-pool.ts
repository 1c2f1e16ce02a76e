import pg from 'pg';

/**
 * A `pg` pool for a test's own producer connections, whose late errors are ignored: `pool.end()`
 * resolves once its clients are asked to close, not once they have, so a test that then drops
 * its database (`DROP DATABASE … WITH (FORCE)`) can terminate a connection still closing, and
 * that error reaches the pool as an `error` event, an uncaught exception without a listener.
 */
export function testPool(connectionString: string): pg.Pool {
  const pool = new pg.Pool({ connectionString });
  pool.on('error', () => undefined);
  return pool;
}

import pg from 'pg';

const INT8_OID = 20;

/**
 * A connection pool for the queue. `bigint` (int8) columns come back as numbers: job ids and
 * counts stay far below 2^53. An idle connection that dies (database restart, network cut) is
 * reported to `onIdleError` and dropped instead of crashing the process; the next query opens a
 * new one.
 */
export function createPgPool(
  connectionString: string,
  max = 10,
  onIdleError: (error: Error) => void = () => undefined,
): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary'): unknown =>
        oid === INT8_OID
          ? (value: string) => Number(value)
          : (pg.types.getTypeParser as (oid: number, format?: string) => unknown)(oid, format)) as never,
    },
  });
  pool.on('error', onIdleError);
  return pool;
}

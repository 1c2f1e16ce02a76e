import pg from 'pg';

const INT8_OID = 20;

/**
 * A connection pool for the queue. `bigint` (int8) columns come back as numbers: job ids and
 * counts stay far below 2^53.
 */
export function createPgPool(connectionString: string, max = 10): pg.Pool {
  return new pg.Pool({
    connectionString,
    max,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as never,
    },
  });
}

import pg from 'pg';
import type { Logger } from '@nudge/core';
import { UnpreparedClient } from './pg-unprepared-client.js';

const INT8_OID = 20;

/** Settings of {@link createPgPool}. */
export interface PgPoolOptions {
  /** Most connections. */
  readonly max: number;
  /** Longest wait for a new connection, in ms. */
  readonly connectTimeoutMs: number;
  /**
   * Longest a query may run, in ms: the server cancels it (`statement_timeout`), and the client
   * gives up on an answer that never comes (`query_timeout`, a little later) and drops the
   * connection.
   */
  readonly queryTimeoutMs: number;
  /** Where errors of idle connections go. */
  readonly logger: Logger;
  /**
   * Whether a commit waits for its WAL to reach disk (PostgreSQL's `synchronous_commit`). Off
   * only for writes whose loss in a database crash is harmless (see {@link PostgresStore}).
   * @defaultValue true
   */
  readonly durableCommits?: boolean;
  /**
   * Whether the server sees this client's session settings: `statement_timeout`, the planner
   * options and `synchronous_commit`, sent in the startup packet. Off behind a transaction pooler,
   * which rejects or drops them (see `probePooler`); queries then run under the server's own
   * settings, with only the client-side timeout, and every commit is durable.
   * @defaultValue true
   */
  readonly sessionSettings?: boolean;
  /**
   * Whether every statement on the pool reads the jobs table through an index (claims, outcome
   * writes and heartbeats): the planner then never picks a sequential scan where an index serves
   * ({@link BY_INDEX_OPTIONS}). Only with `sessionSettings`.
   * @defaultValue false
   */
  readonly byIndexOnly?: boolean;
  /**
   * Whether queries given a `name` become named prepared statements, parsed once per connection.
   * Off behind a transaction pooler (see {@link UnpreparedClient}).
   * @defaultValue true
   */
  readonly namedStatements?: boolean;
}

/**
 * Planner settings of the store's own connections. Every hot-path read is "the first rows in
 * index order" (`ORDER BY … LIMIT n` on a partial index) or a primary-key lookup. On a table whose
 * statistics are missing or stale (a queue filled faster than autovacuum analyzes it), the
 * planner judged a bitmap scan of every PENDING row plus a sort cheaper than reading the first n
 * entries of the claim index, making each claim O(queue length). With sorts and bitmap scans
 * priced out, the index order is chosen whatever the statistics say; queries that truly need a
 * sort still run. JIT is off: a priced-out sort (a claim of capped or limited queues needs a few
 * small ones) lifts a statement's estimated cost past `jit_above_cost`, and compiling it took
 * 2.5 s of a statement that runs in 1 ms.
 */
export const PLANNER_OPTIONS = '-c enable_sort=off -c enable_bitmapscan=off -c jit=off';

/**
 * Planner settings added for pools whose statements all find their rows through an index. A
 * prepared statement's generic plan is made once per connection, with the statistics of that
 * moment: made while the jobs table was nearly empty (a new database, or one retention had
 * emptied), the claim's `UPDATE … WHERE id = ANY(…)` kept a sequential scan as the table grew,
 * reading every row, finished ones included, on each claim, until autovacuum's next `ANALYZE`
 * replanned it (seen at 2,000 jobs/s on a new database: each claim scanned the whole table).
 * Table-wide reads (the stats, retention) run on the main pool, where a sequential scan can be
 * the right plan, so this is not set there.
 */
export const BY_INDEX_OPTIONS = '-c enable_seqscan=off';

/** How much later than the server's `statement_timeout` the client stops waiting, in ms. */
const CLIENT_TIMEOUT_MARGIN_MS = 1000;

/**
 * How long an unused connection stays open, in ms (pg's default is 10 s): longer than an idle
 * instance's longest safety poll (`NUDGE_IDLE_POLL_MAX_MS`, 30 s by default) and its once-a-minute
 * registry and retention runs, so they reuse one connection instead of opening one each time (a
 * connection start is a transaction on the server, and a backend process).
 */
export const IDLE_CONNECTION_MS = 120_000;

/**
 * A connection pool for the queue. `bigint` (int8) columns come back as numbers: job ids and
 * counts stay far below 2^53. Every call fails within seconds when the database is unreachable:
 * connecting is bounded by `connectTimeoutMs`, and a query by `queryTimeoutMs` on the server and
 * on the client (a server that accepts a connection and never answers). TCP keep-alive notices
 * dead peers on idle connections. An idle connection that dies (database restart, network cut)
 * (or one in use) is logged and dropped instead of crashing the process; the next query opens a
 * new one.
 */
export function createPgPool(connectionString: string, options: PgPoolOptions): pg.Pool {
  const settings = [
    PLANNER_OPTIONS,
    ...(options.byIndexOnly === true ? [BY_INDEX_OPTIONS] : []),
    ...(options.durableCommits === false ? ['-c synchronous_commit=off'] : []),
  ];
  const sessionSettings = options.sessionSettings !== false && {
    statement_timeout: options.queryTimeoutMs,
    options: settings.join(' '),
  };
  const pool = new pg.Pool({
    connectionString,
    max: options.max,
    connectionTimeoutMillis: options.connectTimeoutMs,
    idleTimeoutMillis: IDLE_CONNECTION_MS,
    query_timeout: options.queryTimeoutMs + CLIENT_TIMEOUT_MARGIN_MS,
    keepAlive: true,
    ...sessionSettings,
    ...(options.namedStatements === false && { Client: UnpreparedClient }),
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary'): unknown =>
        oid === INT8_OID
          ? (value: string) => Number(value)
          : (pg.types.getTypeParser as (oid: number, format?: string) => unknown)(oid, format)) as never,
    },
  });
  pool.on('error', (error) => {
    options.logger.warn({ err: error }, 'an idle PostgreSQL connection failed; it was dropped');
  });
  // A connection checked out between two queries of a transaction has no other listener: without
  // this one, its socket error would be an uncaught exception that ends the process. The query in
  // flight (if any) still fails, and the pool discards the broken connection on release.
  pool.on('connect', (client) => {
    client.on('error', (error) => {
      options.logger.warn({ err: error }, 'a PostgreSQL connection failed');
    });
  });
  return pool;
}

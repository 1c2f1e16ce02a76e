import type Database from 'better-sqlite3';
import type { CompiledQuery, Kysely } from 'kysely';
import type pg from 'pg';
import type { ReturnedRow, SqlDialect, SqlQuery } from '@nudge/store/sql';

/**
 * Anything the transactional enqueue writes through, recognised by its shape (none of these
 * libraries is loaded by the client; they are optional peer dependencies):
 *
 * - a Kysely instance or a Kysely transaction, on PostgreSQL or SQLite;
 * - a `pg` `Client` or `PoolClient` (normally inside the caller's `BEGIN`), or a `pg.Pool`;
 * - a `better-sqlite3` `Database` (normally inside the caller's `db.transaction(…)`).
 */
export type EnqueueExecutor =
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any database schema
  Kysely<any> | pg.ClientBase | pg.Pool | Database.Database;

/** The executor, told apart by shape. */
export type DetectedExecutor =
  | { readonly type: 'better-sqlite3'; readonly db: Database.Database }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any database schema
  | { readonly type: 'kysely'; readonly db: Kysely<any>; readonly dialect: SqlDialect }
  | { readonly type: 'pg-pool'; readonly pool: pg.Pool }
  | { readonly type: 'pg-client'; readonly client: pg.ClientBase };

const fn = (value: unknown, name: string): boolean =>
  typeof (value as Record<string, unknown>)[name] === 'function';

/** The dialect of a Kysely adapter, by its class (or a parent class) name. */
function kyselyDialect(db: { getExecutor(): { adapter: object } }): SqlDialect | undefined {
  for (
    let proto: unknown = Object.getPrototypeOf(db.getExecutor().adapter);
    proto;
    proto = Object.getPrototypeOf(proto)
  ) {
    const name = (proto as { constructor?: { name?: unknown } }).constructor?.name;
    if (name === 'PostgresAdapter') return 'postgres';
    if (name === 'SqliteAdapter') return 'sqlite';
  }
  return undefined;
}

/**
 * Tells the executor's type apart by duck typing.
 *
 * @param dialect - the dialect of a Kysely instance whose adapter is neither Kysely's
 *   `PostgresAdapter` nor its `SqliteAdapter` (or a subclass); ignored for the other executors
 * @throws TypeError when `executor` is none of the supported ones, or a Kysely instance of an
 *   unknown dialect without `dialect`
 */
export function detectExecutor(executor: EnqueueExecutor, dialect?: SqlDialect): DetectedExecutor {
  const value: unknown = executor;
  if (typeof value !== 'object' || value === null) {
    throw new TypeError(
      `enqueue needs a Kysely instance, a pg client or pool, or a better-sqlite3 database (got ${String(value)})`,
    );
  }
  if (
    fn(value, 'prepare') &&
    fn(value, 'transaction') &&
    typeof (value as { inTransaction?: unknown }).inTransaction === 'boolean'
  ) {
    return { type: 'better-sqlite3', db: executor as Database.Database };
  }
  if (fn(value, 'executeQuery') && fn(value, 'getExecutor')) {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any database schema
    const db = executor as Kysely<any>;
    const found = kyselyDialect(db) ?? dialect;
    if (!found) {
      throw new TypeError(
        "cannot tell this Kysely instance's dialect from its adapter: pass { dialect: 'postgres' } or { dialect: 'sqlite' }",
      );
    }
    return { type: 'kysely', db, dialect: found };
  }
  if (fn(value, 'query') && fn(value, 'connect') && 'totalCount' in value) {
    return { type: 'pg-pool', pool: executor as pg.Pool };
  }
  if (fn(value, 'query')) return { type: 'pg-client', client: executor as pg.ClientBase };
  throw new TypeError(
    'enqueue needs a Kysely instance or transaction, a pg Client, PoolClient or Pool, or a better-sqlite3 Database',
  );
}

/** Runs one statement through Kysely (as a raw compiled query: no query builder is needed). */
export async function kyselyQuery(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any database schema
  db: Kysely<any>,
  query: SqlQuery,
): Promise<ReturnedRow[]> {
  const compiled = {
    sql: query.sql,
    parameters: query.params,
    query: { kind: 'RawNode', sqlFragments: [query.sql], parameters: [] },
    queryId: { queryId: 'nudge-enqueue' },
  } as unknown as CompiledQuery<ReturnedRow>;
  return [...(await db.executeQuery(compiled)).rows];
}

/** Runs one statement through a `pg` client or pool. */
export async function pgQuery(client: pg.ClientBase | pg.Pool, query: SqlQuery): Promise<ReturnedRow[]> {
  return (await client.query<ReturnedRow>(query.sql, [...query.params])).rows;
}

/** Prepared statements per database; a few shapes of statement repeat, so a small cache does. */
const statements = new WeakMap<Database.Database, Map<string, Database.Statement>>();
const MAX_CACHED = 64;

/** Runs one statement through better-sqlite3, synchronously. */
export function sqliteQuery(db: Database.Database, query: SqlQuery): ReturnedRow[] {
  let cache = statements.get(db);
  if (!cache) statements.set(db, (cache = new Map<string, Database.Statement>()));
  let statement = cache.get(query.sql);
  if (!statement) {
    statement = db.prepare(query.sql);
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
    cache.set(query.sql, statement);
  }
  return statement.all(...query.params) as ReturnedRow[];
}

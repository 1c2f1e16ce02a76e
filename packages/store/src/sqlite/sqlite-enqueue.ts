import type Database from 'better-sqlite3';
import type { Enqueuer } from '@nudge/core';
import { enqueuePlan, type ReturnedRow } from '../sql/index.js';
import { Kysely, SqliteDialect } from 'kysely';
import type { EnqueuedJob, EnqueueInput } from '../store.js';
import { sqliteRowToJob, type SqliteJobRow } from './sqlite-row.js';

/** Prepared statements kept per store: past this many shapes and sizes, the cache starts over. */
const MAX_CACHED_STATEMENTS = 64;

type SqliteReturnedRow = SqliteJobRow & ReturnedRow;

/**
 * Prepares enqueue for SQLite: the enqueue plan (`sql/enqueue-plan.ts`) (one multi-row INSERT per run of up to
 * 1,000 jobs that set the same fields, omitted fields falling to the schema's defaults, then a
 * read-back of keys that existed), run by better-sqlite3 in one synchronous `BEGIN IMMEDIATE`
 * transaction, so a batch is atomic and nothing else on this connection interleaves with it.
 * `BEGIN IMMEDIATE` holds the write lock, so no other process can insert the same key between a
 * conflict and its read-back. The returned function takes the API key that enqueues as
 * `Store.enqueueMany` does.
 */
export function createSqliteEnqueue(
  db: Database.Database,
): (inputs: readonly EnqueueInput[], enqueuer?: Enqueuer) => EnqueuedJob[] {
  const statements = new Map<string, Database.Statement<unknown[], SqliteReturnedRow>>();
  const prepared = (sql: string): Database.Statement<unknown[], SqliteReturnedRow> => {
    let statement = statements.get(sql);
    if (!statement) {
      if (statements.size >= MAX_CACHED_STATEMENTS) statements.clear();
      statement = db.prepare<unknown[], SqliteReturnedRow>(sql);
      statements.set(sql, statement);
    }
    return statement;
  };
  const insertAll = db.transaction((inputs: readonly EnqueueInput[], enqueuer?: Enqueuer): EnqueuedJob[] => {
    const plan = enqueuePlan<SqliteReturnedRow>('sqlite', inputs, 'rows', 'refuse', enqueuer);
    let step = plan.next();
    while (!step.done) step = plan.next(prepared(step.value.sql).all(...step.value.params));
    return step.value.map(({ row, created }) => ({ ...sqliteRowToJob(row), created }));
  });
  return (inputs, enqueuer) => (inputs.length === 0 ? [] : insertAll.immediate(inputs, enqueuer));
}

/** A Kysely instance over an open better-sqlite3 database. */
export function sqliteKysely<Schema>(db: Database.Database): Kysely<Schema> {
  return new Kysely<Schema>({ dialect: new SqliteDialect({ database: db }) });
}

import type Database from 'better-sqlite3';
import { Kysely, SqliteDialect, sql, type InsertObject } from 'kysely';
import type { EnqueuedJob, EnqueueInput } from '../store.js';
import { sqliteRowToJob, type SqliteJobRow, type SqliteSchema } from './sqlite-row.js';

function toRow(input: EnqueueInput): InsertObject<SqliteSchema, 'nudge_jobs'> {
  const row: InsertObject<SqliteSchema, 'nudge_jobs'> = { kind: input.kind };
  if (input.payload !== undefined) row.payload = JSON.stringify(input.payload);
  if (input.queue !== undefined) row.queue = input.queue;
  if (input.priority !== undefined) row.priority = input.priority;
  if (input.runAt !== undefined) {
    const runAt = input.runAt.toISOString();
    row.run_at = runAt;
    // Set here rather than left to the insert trigger, so that RETURNING shows it.
    row.status = sql<string>`CASE WHEN ${runAt} > strftime('%Y-%m-%dT%H:%M:%fZ', 'now') THEN 'SCHEDULED' ELSE 'PENDING' END`;
  } else if (input.delayMs !== undefined) {
    // The database clock plus the delay, in the same statement: the producer's clock plays no
    // part. Any delay above 0 lies after that clock, so the job is SCHEDULED.
    row.run_at = sql<string>`strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '+' || (${input.delayMs} / 1000.0) || ' seconds')`;
    if (input.delayMs > 0) row.status = 'SCHEDULED';
  }
  if (input.maxAttempts !== undefined) row.max_attempts = input.maxAttempts;
  if (input.idempotencyKey !== undefined) row.idempotency_key = input.idempotencyKey;
  return row;
}

/**
 * Prepares batch enqueue for SQLite. Kysely builds each INSERT (omitted fields fall to the
 * schema defaults); better-sqlite3 runs them all in one synchronous `BEGIN IMMEDIATE`
 * transaction, so a batch is atomic and nothing else on this connection interleaves with it. A
 * job whose kind and idempotency key exist (or repeat an earlier job of the batch) inserts nothing
 * (`ON CONFLICT … DO NOTHING`) and is read back; `BEGIN IMMEDIATE` holds the write lock, so no
 * other process can insert the same key in between.
 */
export function createSqliteEnqueue(
  db: Database.Database,
  kysely: Kysely<SqliteSchema>,
): (inputs: readonly EnqueueInput[]) => EnqueuedJob[] {
  const statements = new Map<string, Database.Statement<unknown[], SqliteJobRow>>();
  const prepared = (sql: string): Database.Statement<unknown[], SqliteJobRow> => {
    let statement = statements.get(sql);
    if (!statement) {
      statement = db.prepare<unknown[], SqliteJobRow>(sql);
      statements.set(sql, statement);
    }
    return statement;
  };
  const existing = db.prepare<[string, string], SqliteJobRow>(
    'SELECT * FROM nudge_jobs WHERE kind = ? AND idempotency_key = ?',
  );
  const insertAll = db.transaction((inputs: readonly EnqueueInput[]) =>
    inputs.map((input): EnqueuedJob => {
      const query = kysely
        .insertInto('nudge_jobs')
        .values(toRow(input))
        .onConflict((oc) =>
          oc.columns(['kind', 'idempotency_key']).where('idempotency_key', 'is not', null).doNothing(),
        )
        .returningAll()
        .compile();
      const row = prepared(query.sql).get(...query.parameters);
      if (row) return { ...sqliteRowToJob(row), created: true };
      const found =
        input.idempotencyKey === undefined ? undefined : existing.get(input.kind, input.idempotencyKey);
      if (!found) throw new Error('INSERT … RETURNING returned no row');
      return { ...sqliteRowToJob(found), created: false };
    }),
  );
  return (inputs) => (inputs.length === 0 ? [] : insertAll.immediate(inputs));
}

/** A Kysely instance over an open better-sqlite3 database. */
export function sqliteKysely<Schema>(db: Database.Database): Kysely<Schema> {
  return new Kysely<Schema>({ dialect: new SqliteDialect({ database: db }) });
}

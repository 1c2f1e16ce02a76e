// A producer, as an app would write it: it enqueues jobs inside its own database transactions
// (Kysely and pg on PostgreSQL; better-sqlite3 and Kysely on SQLite), nudges the service, and
// waits for the jobs over HTTP. NUDGE_URL is the service, DATABASE_URL its database.
import Database from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql, type Generated } from 'kysely';
import pg from 'pg';
import { enqueue, enqueueSync, NudgeApiError, nudge } from '@nudge/client';
import { checkJobs, clientOf, required, type Expected } from './jobs.js';

/** The app's own table, written in the same transactions as the jobs. */
interface AppTables {
  orders: { id: Generated<number>; total: number };
}

const baseUrl = required('NUDGE_URL');
const databaseUrl = required('DATABASE_URL');
const client = clientOf(baseUrl);

async function onPostgres(): Promise<Expected[]> {
  const pool = new pg.Pool({ connectionString: databaseUrl });
  const db = new Kysely<AppTables>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: databaseUrl }) }),
  });
  try {
    await sql`CREATE TABLE IF NOT EXISTS orders (id serial PRIMARY KEY, total integer NOT NULL)`.execute(db);
    const viaKysely = await db.transaction().execute(async (trx) => {
      const order = await trx
        .insertInto('orders')
        .values({ total: 40 })
        .returning('id')
        .executeTakeFirstOrThrow();
      return enqueue(trx, { kind: 'add', payload: { a: 40, b: 2 }, idempotencyKey: `order-${order.id}` });
    });

    const connection = await pool.connect();
    let viaPg: { id: number };
    let rolledBack: { id: number };
    try {
      await connection.query('BEGIN');
      await connection.query('INSERT INTO orders (total) VALUES (7)');
      viaPg = await enqueue(connection, { kind: 'greet', payload: { name: 'pg' } });
      await connection.query('COMMIT');
      await connection.query('BEGIN');
      rolledBack = await enqueue(connection, { kind: 'greet', payload: { name: 'nobody' } });
      await connection.query('ROLLBACK');
    } finally {
      connection.release();
    }
    await assertAbsent(rolledBack.id, 'pg transaction rolled back');
    return [
      { via: 'kysely transaction (postgres)', id: viaKysely.id, result: { sum: 42 } },
      { via: 'pg transaction', id: viaPg.id, result: { greeting: 'hello, pg', attempt: 1 } },
    ];
  } finally {
    await db.destroy();
    await pool.end();
  }
}

async function onSqlite(): Promise<Expected[]> {
  const file = databaseUrl.replace(/^(sqlite|file):/, '');
  const database = new Database(file);
  database.pragma('busy_timeout = 5000');
  const db = new Kysely<AppTables>({ dialect: new SqliteDialect({ database: new Database(file) }) });
  try {
    database.exec('CREATE TABLE IF NOT EXISTS orders (id INTEGER PRIMARY KEY, total INTEGER NOT NULL)');
    const placeOrder = database.transaction((total: number) => {
      database.prepare('INSERT INTO orders (total) VALUES (?)').run(total);
      return enqueueSync(database, { kind: 'add', payload: { a: total, b: 1 } });
    });
    const viaBetterSqlite = placeOrder.immediate(9);
    const viaKysely = await db.transaction().execute(async (trx) => {
      await trx.insertInto('orders').values({ id: 100, total: 5 }).execute();
      return enqueue(trx, { kind: 'greet', payload: { name: 'kysely' } });
    });
    let rolledBack: { id: number } | undefined;
    try {
      database
        .transaction(() => {
          rolledBack = enqueueSync(database, { kind: 'greet', payload: { name: 'nobody' } });
          throw new Error('roll back');
        })
        .immediate();
    } catch (error) {
      if ((error as Error).message !== 'roll back') throw error;
    }
    if (!rolledBack) throw new Error('the rolled-back transaction enqueued nothing');
    await assertAbsent(rolledBack.id, 'better-sqlite3 transaction rolled back');
    return [
      { via: 'better-sqlite3 transaction', id: viaBetterSqlite.id, result: { sum: 10 } },
      {
        via: 'kysely transaction (sqlite)',
        id: viaKysely.id,
        result: { greeting: 'hello, kysely', attempt: 1 },
      },
    ];
  } finally {
    await db.destroy();
    database.close();
  }
}

/** Throws unless the job `id` does not exist (`404 JOB_NOT_FOUND`). */
async function assertAbsent(id: number, via: string): Promise<void> {
  try {
    await client.get(id);
  } catch (error) {
    if (error instanceof NudgeApiError && error.status === 404) {
      console.log(`${via}: job ${id} → ${error.code}, as it should`);
      return;
    }
    throw error;
  }
  throw new Error(`job ${id} exists although its transaction rolled back`);
}

const expected = databaseUrl.startsWith('postgres') ? await onPostgres() : await onSqlite();
const outcome = await nudge(baseUrl);
console.log(`nudge ${baseUrl} → ${outcome.ok ? 'ok' : `failed: ${outcome.error.message}`}`);
await checkJobs(client, expected);

// The executors a producer may hand to the transactional enqueue, each opened on a test database
// with the producer's own `orders` table, and run in a transaction that commits or rolls back.
import Database from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql, type Generated } from 'kysely';
import pg from 'pg';
import { enqueueMany, enqueueManySync, type EnqueueResult, type JobInput } from '@nudge/client';
import { testPool, type TestDatabase } from '../helpers/index.js';

/** A producer writing one order and its jobs in one transaction, through one executor type. */
export interface ProducerExecutor {
  readonly name: string;
  /**
   * Inserts an order and `jobs` in one transaction; throws after both when `rollback` is true
   * (so the transaction rolls back), else commits.
   * @returns the enqueue results of a committed transaction
   */
  write(db: TestDatabase, jobs: readonly JobInput[], rollback: boolean): Promise<EnqueueResult[]>;
  /** Whether the executor can roll back the producer's writes (a bare Kysely instance or pool cannot). */
  readonly transactional: boolean;
}

/** The error a rolled-back producer throws. */
export class Rollback extends Error {}

const sqlitePath = (db: TestDatabase): string => db.url.slice('sqlite:'.length);

function openSqlite(db: TestDatabase): Database.Database {
  const conn = new Database(sqlitePath(db));
  conn.pragma('busy_timeout = 5000');
  conn.exec('CREATE TABLE IF NOT EXISTS orders (id INTEGER PRIMARY KEY, note TEXT NOT NULL)');
  return conn;
}

async function createOrders(db: TestDatabase): Promise<void> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    await client.query('CREATE TABLE IF NOT EXISTS orders (id serial PRIMARY KEY, note text NOT NULL)');
  } finally {
    await client.end();
  }
}

/** Every executor type of a dialect. */
export function producerExecutors(dialect: TestDatabase['dialect']): ProducerExecutor[] {
  if (dialect === 'sqlite') {
    return [
      {
        name: 'better-sqlite3 db.transaction',
        transactional: true,
        write: async (db, jobs, rollback) => {
          const conn = openSqlite(db);
          try {
            return conn
              .transaction(() => {
                conn.prepare("INSERT INTO orders (note) VALUES ('sqlite')").run();
                const results = enqueueManySync(conn, jobs);
                if (rollback) throw new Rollback();
                return results;
              })
              .immediate();
          } finally {
            conn.close();
          }
        },
      },
      ...kyselyExecutors((db) => new Kysely({ dialect: new SqliteDialect({ database: openSqlite(db) }) })),
    ];
  }
  return [
    {
      name: 'pg client in BEGIN',
      transactional: true,
      write: async (db, jobs, rollback) => {
        await createOrders(db);
        const client = new pg.Client({ connectionString: db.url });
        await client.connect();
        try {
          await client.query('BEGIN');
          await client.query("INSERT INTO orders (note) VALUES ('pg')");
          const results = await enqueueMany(client, jobs);
          await client.query(rollback ? 'ROLLBACK' : 'COMMIT');
          if (rollback) throw new Rollback();
          return results;
        } finally {
          await client.end();
        }
      },
    },
    {
      name: 'pg pool',
      transactional: false,
      write: async (db, jobs) => {
        await createOrders(db);
        const pool = testPool(db.url);
        try {
          await pool.query("INSERT INTO orders (note) VALUES ('pool')");
          return await enqueueMany(pool, jobs);
        } finally {
          await pool.end();
        }
      },
    },
    ...kyselyExecutors(async (db) => {
      await createOrders(db);
      return new Kysely({
        dialect: new PostgresDialect({ pool: testPool(db.url) }),
      });
    }),
  ];
}

interface OrdersSchema {
  orders: { id: Generated<number>; note: string };
}

function kyselyExecutors(
  open: (db: TestDatabase) => Kysely<OrdersSchema> | Promise<Kysely<OrdersSchema>>,
): ProducerExecutor[] {
  return [
    {
      name: 'Kysely transaction',
      transactional: true,
      write: async (db, jobs, rollback) => {
        const kysely = await open(db);
        try {
          return await kysely.transaction().execute(async (trx) => {
            await trx.insertInto('orders').values({ note: 'kysely' }).execute();
            const results = await enqueueMany(trx, jobs);
            if (rollback) throw new Rollback();
            return results;
          });
        } finally {
          await kysely.destroy();
        }
      },
    },
    {
      name: 'Kysely instance',
      transactional: false,
      write: async (db, jobs) => {
        const kysely = await open(db);
        try {
          await sql`INSERT INTO orders (note) VALUES ('instance')`.execute(kysely);
          return await enqueueMany(kysely, jobs);
        } finally {
          await kysely.destroy();
        }
      },
    },
  ];
}

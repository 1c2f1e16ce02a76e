// The executors a producer may hand to `signal(executor, …)` of @nudge/client, each opened on a
// test database with the producer's own `approvals` table, in a transaction that commits or rolls
// back after writing an approval row and the signal.
import Database from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql, type Generated } from 'kysely';
import pg from 'pg';
import type { JsonValue } from '@nudge/core';
import { signal, signalSync, type SignalOptions, type SignalResult } from '@nudge/client';
import { testPool, type TestDatabase } from '../helpers/index.js';

/** One signal to send: to `jobId`, named `name`, with `payload`. */
export interface SignalSend {
  readonly jobId: number;
  readonly name: string;
  readonly payload?: JsonValue;
  readonly options?: SignalOptions;
}

/** A producer writing an approval and a signal in one transaction, through one executor type. */
export interface SignalExecutor {
  readonly name: string;
  /** Whether it writes in the producer's transaction (a bare Kysely instance or pool cannot). */
  readonly transactional: boolean;
  /**
   * Inserts an approval and sends `send` in one transaction; throws {@link Rollback} after both
   * when `rollback` is true (the transaction rolls back), else commits.
   */
  send(db: TestDatabase, send: SignalSend, rollback: boolean): Promise<SignalResult>;
}

/** The error a rolled-back producer throws. */
export class Rollback extends Error {}

interface ApprovalsSchema {
  approvals: { id: Generated<number>; note: string };
}

function openSqlite(db: TestDatabase): Database.Database {
  const conn = new Database(db.url.slice('sqlite:'.length));
  conn.pragma('busy_timeout = 5000');
  conn.exec('CREATE TABLE IF NOT EXISTS approvals (id INTEGER PRIMARY KEY, note TEXT NOT NULL)');
  return conn;
}

async function createApprovals(db: TestDatabase): Promise<void> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    await client.query('CREATE TABLE IF NOT EXISTS approvals (id serial PRIMARY KEY, note text NOT NULL)');
  } finally {
    await client.end();
  }
}

const sendWith = (executor: Parameters<typeof signal>[0], s: SignalSend) =>
  signal(executor, s.jobId, s.name, s.payload, s.options);

/** Every executor type of a dialect. */
export function signalExecutors(dialect: TestDatabase['dialect']): SignalExecutor[] {
  if (dialect === 'sqlite') {
    return [
      {
        name: 'better-sqlite3 db.transaction with signalSync',
        transactional: true,
        send: async (db, s, rollback) => {
          const conn = openSqlite(db);
          try {
            return conn
              .transaction(() => {
                conn.prepare("INSERT INTO approvals (note) VALUES ('sqlite')").run();
                const result = signalSync(conn, s.jobId, s.name, s.payload, s.options);
                if (rollback) throw new Rollback();
                return result;
              })
              .immediate();
          } finally {
            conn.close();
          }
        },
      },
      {
        name: 'better-sqlite3 database outside a transaction',
        transactional: false,
        send: async (db, s) => {
          const conn = openSqlite(db);
          try {
            return await sendWith(conn, s);
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
      send: async (db, s, rollback) => {
        await createApprovals(db);
        const client = new pg.Client({ connectionString: db.url });
        await client.connect();
        try {
          await client.query('BEGIN');
          await client.query("INSERT INTO approvals (note) VALUES ('pg')");
          let result: SignalResult;
          try {
            result = await sendWith(client, s);
          } catch (error) {
            await client.query('ROLLBACK');
            throw error;
          }
          await client.query(rollback ? 'ROLLBACK' : 'COMMIT');
          if (rollback) throw new Rollback();
          return result;
        } finally {
          await client.end();
        }
      },
    },
    {
      name: 'pg pool',
      transactional: false,
      send: async (db, s) => {
        const pool = testPool(db.url);
        try {
          return await sendWith(pool, s);
        } finally {
          await pool.end();
        }
      },
    },
    ...kyselyExecutors(async (db) => {
      await createApprovals(db);
      return new Kysely({ dialect: new PostgresDialect({ pool: testPool(db.url) }) });
    }),
  ];
}

function kyselyExecutors(
  open: (db: TestDatabase) => Kysely<ApprovalsSchema> | Promise<Kysely<ApprovalsSchema>>,
): SignalExecutor[] {
  return [
    {
      name: 'Kysely transaction',
      transactional: true,
      send: async (db, s, rollback) => {
        const kysely = await open(db);
        try {
          return await kysely.transaction().execute(async (trx) => {
            await trx.insertInto('approvals').values({ note: 'kysely' }).execute();
            const result = await sendWith(trx, s);
            if (rollback) throw new Rollback();
            return result;
          });
        } finally {
          await kysely.destroy();
        }
      },
    },
    {
      name: 'Kysely instance',
      transactional: false,
      send: async (db, s) => {
        const kysely = await open(db);
        try {
          await sql`SELECT 1`.execute(kysely);
          return await sendWith(kysely, s);
        } finally {
          await kysely.destroy();
        }
      },
    },
  ];
}

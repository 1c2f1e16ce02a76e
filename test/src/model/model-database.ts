// The model test's database: one per dialect for all runs, emptied before each run (cheaper than
// creating and migrating one per run), and the three store instances each run opens on it.
import Database from 'better-sqlite3';
import pg from 'pg';
import { PostgresStore, SqliteStore, type Store } from '@nudge/store';
import type { TestDatabase } from '../helpers/index.js';

/** Store instances a run opens on one database: three engine instances sharing it. */
export const INSTANCE_COUNT = 3;

/** Empties the model test's database before each run; see {@link openEmptier}. */
export interface DatabaseEmptier {
  /**
   * Deletes every row but the migration ledger's and restarts the id counters, so a run sees the
   * database as a freshly migrated one (job ids from 1: a replayed run names the same ids).
   */
  empty(): Promise<void>;
  close(): Promise<void>;
}

const TABLES_SQL = `SELECT name FROM sqlite_master
 WHERE type = 'table' AND name LIKE 'nudge\\_%' ESCAPE '\\' AND name <> 'nudge_migrations'`;

const PG_RELATIONS_SQL = `SELECT relname AS name, relkind::text AS kind FROM pg_class
 WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'S')
   AND relname LIKE 'nudge\\_%' AND relname <> 'nudge_migrations'`;

/** Opens one connection to `db` that empties it before each run (a connection costs ~40 ms). */
export async function openEmptier(db: TestDatabase): Promise<DatabaseEmptier> {
  if (db.dialect === 'sqlite') {
    const conn = new Database(db.url.slice('sqlite:'.length));
    conn.pragma('busy_timeout = 5000');
    const tables = conn
      .prepare<[], { name: string }>(TABLES_SQL)
      .all()
      .map((row) => row.name);
    const sql = `BEGIN; ${tables.map((name) => `DELETE FROM "${name}";`).join(' ')} DELETE FROM sqlite_sequence; COMMIT;`;
    return { empty: async () => void conn.exec(sql), close: async () => void conn.close() };
  }
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const { rows } = await client.query<{ name: string; kind: string }>(PG_RELATIONS_SQL);
  // DELETE, not TRUNCATE: on a few rows it takes a millisecond, TRUNCATE a quarter of a second.
  const statements = rows.map(({ name, kind }) =>
    kind === 'S' ? `ALTER SEQUENCE "${name}" RESTART` : `DELETE FROM "${name}"`,
  );
  const sql = `BEGIN; ${statements.join('; ')}; COMMIT`;
  return { empty: async () => void (await client.query(sql)), close: () => client.end() };
}

/** Opens one store instance on the (already migrated) database; it keeps its own claim hints. */
export function openInstance(db: TestDatabase): Store {
  return db.dialect === 'postgres'
    ? new PostgresStore(db.url, { poolSize: 2 })
    : new SqliteStore(db.url.slice('sqlite:'.length));
}

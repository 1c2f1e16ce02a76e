import type pg from 'pg';
import { pgTransaction } from './pg-transaction.js';
import { loadMigrationFiles } from '../migration-files.js';
import { assertSchemaNotNewer } from '../schema-too-new.js';
import type { SchemaState } from '../store.js';

// Any constant shared by every nudge process; 0x6e75646765 is "nudge" in ASCII.
const MIGRATION_LOCK_KEY = 0x6e75646765;

const LEDGER = `CREATE TABLE IF NOT EXISTS nudge_migrations (
  version    integer PRIMARY KEY,
  name       text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;

async function appliedVersion(client: pg.PoolClient | pg.Pool): Promise<number> {
  const exists = await client.query<{ t: string | null }>(`SELECT to_regclass('nudge_migrations') AS t`);
  if (exists.rows[0]?.t == null) return 0;
  const { rows } = await client.query<{ v: number | null }>('SELECT max(version) AS v FROM nudge_migrations');
  return rows[0]?.v ?? 0;
}

/**
 * Applies pending migrations in one transaction holding a transaction-scoped advisory lock, so
 * instances starting together take turns and only the first does the work.
 *
 * @returns the versions applied
 * @throws NudgeError `SCHEMA_TOO_NEW` when the ledger holds a version this code does not know
 */
export async function migratePostgres(pool: pg.Pool): Promise<number[]> {
  const files = loadMigrationFiles('postgres');
  return pgTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await client.query(LEDGER);
    const applied = await appliedVersion(client);
    assertSchemaNotNewer(applied, files.length);
    const done: number[] = [];
    for (const file of files.filter((f) => f.version > applied)) {
      await client.query(file.sql);
      await client.query('INSERT INTO nudge_migrations (version, name) VALUES ($1, $2)', [
        file.version,
        file.name,
      ]);
      done.push(file.version);
    }
    return done;
  });
}

/** Applied and newest schema versions. */
export async function postgresSchemaState(pool: pg.Pool): Promise<SchemaState> {
  return { applied: await appliedVersion(pool), latest: loadMigrationFiles('postgres').length };
}

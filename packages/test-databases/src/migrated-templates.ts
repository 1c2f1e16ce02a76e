import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PostgresStore, SqliteStore, type Dialect } from '@nudge/store';

/**
 * The environment variables through which the test command hands its migrated templates to the
 * test processes it starts: a PostgreSQL database name on the server `TEST_DATABASE_URL` names,
 * and the path of a migrated SQLite file. Unset, {@link createMigratedDatabase} migrates each new
 * database itself.
 */
export const TEMPLATE_ENV = {
  postgres: 'NUDGE_TEST_PG_TEMPLATE',
  sqlite: 'NUDGE_TEST_SQLITE_TEMPLATE',
  /** The name prefix of the run's test databases, which the run drops when it ends. */
  databasePrefix: 'NUDGE_TEST_DB_PREFIX',
} as const;

/** The name prefix of the PostgreSQL databases tests create: one per test run, or `nudge_test_`. */
export function testDatabasePrefix(): string {
  return process.env[TEMPLATE_ENV.databasePrefix] || 'nudge_test_';
}

/** The templates one test run made, and how to remove them when it ends. */
export interface MigratedTemplates {
  /** The environment variables that point test processes at the templates. */
  readonly env: Record<string, string>;
  /**
   * Drops the PostgreSQL template and every database of the run still there (those of crashed
   * test files, each process's last prefetched copy), and deletes the SQLite file's folder.
   */
  drop(): Promise<void>;
}

/** A client for `adminUrl`'s database, connected; the caller ends it. */
async function adminClient(adminUrl: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  return client;
}

/** `adminUrl` with its database replaced by `name`. */
export function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Migrates one PostgreSQL database and one SQLite file to the newest schema, once per test run:
 * every case's database is then a copy of one of them (`CREATE DATABASE … TEMPLATE`, a file
 * copy) instead of 28 migrations. The PostgreSQL template is left with no connection open, as
 * `CREATE DATABASE … TEMPLATE` requires.
 *
 * @param adminUrl a PostgreSQL URL whose role may create databases
 */
export async function createMigratedTemplates(adminUrl: string): Promise<MigratedTemplates> {
  const run = randomBytes(4).toString('hex');
  const name = `nudge_template_${run}`;
  const prefix = `nudge_test_${run}_`;
  const admin = await adminClient(adminUrl);
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const postgres = new PostgresStore(databaseUrl(adminUrl, name));
  try {
    await postgres.migrate();
  } finally {
    await postgres.close();
  }
  const dir = mkdtempSync(join(tmpdir(), 'nudge-template-'));
  const file = join(dir, 'nudge.db');
  const sqlite = new SqliteStore(file);
  try {
    await sqlite.migrate();
  } finally {
    await sqlite.close();
  }
  return {
    env: {
      [TEMPLATE_ENV.postgres]: name,
      [TEMPLATE_ENV.sqlite]: file,
      [TEMPLATE_ENV.databasePrefix]: prefix,
    },
    drop: async () => {
      rmSync(dir, { recursive: true, force: true });
      const client = await adminClient(adminUrl);
      try {
        const { rows } = await client.query<{ datname: string }>(
          `SELECT datname FROM pg_database WHERE starts_with(datname, $1)`,
          [prefix],
        );
        for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/** The template of `dialect` this process was handed, if any. */
export function migratedTemplate(dialect: Dialect): string | undefined {
  return process.env[TEMPLATE_ENV[dialect]] || undefined;
}

/** Copies the migrated SQLite template to `file`. */
export function copySqliteTemplate(template: string, file: string): void {
  copyFileSync(template, file);
}

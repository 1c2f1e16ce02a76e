import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PostgresStore, SqliteStore, type Dialect, type Store } from '@nudge/store';
import {
  copySqliteTemplate,
  databaseUrl,
  migratedTemplate,
  testDatabasePrefix,
} from './migrated-templates.js';

/** The server every PostgreSQL test uses; `run-tests.mjs` always sets it. */
export function adminPostgresUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is unset: run the tests with `pnpm test`');
  return url;
}

/** A throwaway database: its URL and how to drop it. */
export interface TestDatabase {
  readonly dialect: Dialect;
  /** `postgres://…` or `sqlite:/tmp/…/nudge.db`. */
  readonly url: string;
  /** Drops the PostgreSQL database, or deletes the SQLite file's folder. */
  drop(): Promise<void>;
}

/**
 * Creates an empty PostgreSQL database on the test server, or on the server `adminUrl` reaches
 * (with the right to create databases); a copy of `template` when one is named.
 */
export async function createPostgresDatabase(
  adminUrl = adminPostgresUrl(),
  template?: string,
): Promise<TestDatabase> {
  const admin = new pg.Client({ connectionString: adminUrl });
  const name = `${testDatabasePrefix()}${randomBytes(6).toString('hex')}`;
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  } finally {
    await admin.end();
  }
  return {
    dialect: 'postgres',
    url: databaseUrl(adminUrl, name),
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/** Creates a folder for a fresh SQLite file; a copy of the `template` file when one is named. */
export async function createSqliteDatabase(template?: string): Promise<TestDatabase> {
  const dir = mkdtempSync(join(tmpdir(), 'nudge-sqlite-'));
  if (template) copySqliteTemplate(template, join(dir, 'nudge.db'));
  return {
    dialect: 'sqlite',
    url: `sqlite:${join(dir, 'nudge.db')}`,
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * Creates a throwaway database of either dialect; a PostgreSQL one on the test server, or on
 * the server `postgresAdminUrl` reaches.
 */
export function createTestDatabase(dialect: Dialect, postgresAdminUrl?: string): Promise<TestDatabase> {
  return dialect === 'postgres' ? createPostgresDatabase(postgresAdminUrl) : createSqliteDatabase();
}

/**
 * Creates a throwaway database of either dialect already at the newest schema: a copy of the
 * test run's migrated template (see `createMigratedTemplates`) when the test command made one,
 * otherwise an empty database that this call migrates. For the SQLite dialect the file exists.
 */
export async function createMigratedDatabase(dialect: Dialect): Promise<TestDatabase> {
  const template = migratedTemplate(dialect);
  if (template) {
    return dialect === 'postgres' ? takePrefetchedPostgres(template) : createSqliteDatabase(template);
  }
  const db = await createTestDatabase(dialect);
  await (await openStore(db)).close();
  return db;
}

/** The next copy of the PostgreSQL template, created while the current case runs. */
let prefetched: { template: string; database: Promise<TestDatabase> } | undefined;

/**
 * A copy of `template`: the one made in the background after the last call when there is one,
 * and starts the next. `CREATE DATABASE` waits on the disk more than on the CPU, so a case's
 * database is usually ready when the case starts; the last prefetched copy of a process is
 * dropped with the run's others when the test command ends (see `createMigratedTemplates`).
 */
function takePrefetchedPostgres(template: string): Promise<TestDatabase> {
  const adminUrl = adminPostgresUrl();
  const ready = prefetched?.template === template ? prefetched.database : undefined;
  const next = createPostgresDatabase(adminUrl, template);
  // A failed prefetch fails the call that takes it, not the process.
  next.catch(() => {});
  prefetched = { template, database: next };
  return ready ?? createPostgresDatabase(adminUrl, template);
}

/** Opens and migrates a store on a test database (a no-op migration on a migrated one). */
export async function openStore(db: TestDatabase): Promise<Store> {
  const store =
    db.dialect === 'postgres' ? new PostgresStore(db.url) : new SqliteStore(db.url.slice('sqlite:'.length));
  await store.migrate();
  return store;
}

/** Both dialects, for suites that run every case on each. */
export const DIALECTS: readonly Dialect[] = ['sqlite', 'postgres'];

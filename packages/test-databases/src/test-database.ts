import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PostgresStore, SqliteStore, type Dialect, type Store } from '@nudge/store';

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
 * (with the right to create databases).
 */
export async function createPostgresDatabase(adminUrl = adminPostgresUrl()): Promise<TestDatabase> {
  const admin = new pg.Client({ connectionString: adminUrl });
  const name = `nudge_test_${randomBytes(6).toString('hex')}`;
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    dialect: 'postgres',
    url: url.toString(),
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

/** Creates a folder for a fresh SQLite file. */
export async function createSqliteDatabase(): Promise<TestDatabase> {
  const dir = mkdtempSync(join(tmpdir(), 'nudge-sqlite-'));
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

/** Opens and migrates a store on a test database. */
export async function openStore(db: TestDatabase): Promise<Store> {
  const store =
    db.dialect === 'postgres' ? new PostgresStore(db.url) : new SqliteStore(db.url.slice('sqlite:'.length));
  await store.migrate();
  return store;
}

/** Both dialects, for suites that run every case on each. */
export const DIALECTS: readonly Dialect[] = ['sqlite', 'postgres'];

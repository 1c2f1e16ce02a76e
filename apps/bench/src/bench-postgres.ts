import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { ThrowawayPostgres } from '@nudge/test-databases/throwaway-postgres';

/** A PostgreSQL server for the benchmark and a way to make databases on it. */
export interface BenchPostgres {
  /** URL of the server's maintenance database, for server-wide queries such as its version. */
  readonly adminUrl: string;
  /** Creates an empty database and returns its URL. */
  createDatabase(): Promise<string>;
  /** Drops the databases made and stops an embedded server. */
  close(): Promise<void>;
}

/** Uses `adminUrl` when given, else starts a throwaway server. */
export async function startBenchPostgres(adminUrl: string | undefined): Promise<BenchPostgres> {
  let embedded: ThrowawayPostgres | undefined;
  let url = adminUrl;
  if (!url) {
    embedded = await ThrowawayPostgres.start();
    url = embedded.url;
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
    },
  };
}

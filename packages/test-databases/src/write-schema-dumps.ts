// `pnpm schema:dump`: migrates a fresh database of each dialect and writes its schema to
// packages/store/schema/<dialect>.sql. PostgreSQL is TEST_DATABASE_URL's server, or a throwaway
// embedded one when it is unset (as `pnpm test` does).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { dumpSchema, schemaDumpPath } from './schema-dump.js';
import { createTestDatabase, DIALECTS, openStore } from './test-database.js';

const embedded = process.env.TEST_DATABASE_URL
  ? undefined
  : await (await import('./throwaway-postgres.js')).ThrowawayPostgres.start();
if (embedded) process.env.TEST_DATABASE_URL = embedded.url;
try {
  for (const dialect of DIALECTS) {
    const db = await createTestDatabase(dialect);
    try {
      const store = await openStore(db);
      await store.close();
      const path = schemaDumpPath(dialect);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, await dumpSchema(db));
      console.log(`wrote ${relative(process.cwd(), path)}`);
    } finally {
      await db.drop();
    }
  }
} finally {
  await embedded?.stop();
}

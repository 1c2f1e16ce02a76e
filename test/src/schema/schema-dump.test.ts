import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  createTestDatabase,
  DIALECTS,
  dumpSchema,
  openStore,
  SCHEMA_DUMP_COMMAND,
  schemaDumpPath,
} from '@nudge/test-databases';

// The committed dumps are what review sees of a schema change: each must equal the schema a
// fresh database has after every migration.
describe('committed schema dumps', () => {
  for (const dialect of DIALECTS) {
    it(`packages/store/schema/${dialect}.sql is the schema the ${dialect} migrations build`, async () => {
      const db = await createTestDatabase(dialect);
      try {
        const store = await openStore(db);
        await store.close();
        const committed = readFileSync(schemaDumpPath(dialect), 'utf8');
        assert.equal(
          await dumpSchema(db),
          committed,
          `packages/store/schema/${dialect}.sql is stale: run \`${SCHEMA_DUMP_COMMAND}\` and commit the result`,
        );
      } finally {
        await db.drop();
      }
    });
  }
});

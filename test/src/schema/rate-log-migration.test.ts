// Migration 0016 moves the rate logs from a JSON array in each queue's row to rows of
// nudge_rate_starts, on both dialects: the starts of a window in progress survive the upgrade,
// so the limit holds across it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import { createStore } from '@nudge/store';
import { createTestDatabase, DIALECTS, rawQuery, type TestDatabase } from '@nudge/test-databases';

const MIGRATIONS = (dialect: string): string =>
  fileURLToPath(new URL(`../../../packages/store/migrations/${dialect}/`, import.meta.url));

/** Runs `sql` (several statements) on `db` as one script. */
async function execScript(db: TestDatabase, sql: string): Promise<void> {
  if (db.dialect === 'sqlite') {
    const conn = new Database(db.url.slice('sqlite:'.length));
    try {
      conn.exec(sql);
    } finally {
      conn.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Applies the migration files numbered below `before` and records them in the ledger. */
async function migrateBelow(db: TestDatabase, before: string): Promise<void> {
  await execScript(
    db,
    `CREATE TABLE nudge_migrations (version integer PRIMARY KEY, name text NOT NULL,
       applied_at text NOT NULL DEFAULT 'then')`,
  );
  const folder = MIGRATIONS(db.dialect);
  const files = readdirSync(folder)
    .filter((file) => file.endsWith('.sql') && file < before)
    .sort();
  for (const file of files) {
    await execScript(db, readFileSync(`${folder}${file}`, 'utf8'));
    await rawQuery(db, 'INSERT INTO nudge_migrations (version, name) VALUES (?, ?)', [
      Number(file.slice(0, 4)),
      file.slice(0, -4),
    ]);
  }
}

describe('migration 0016: rate logs as rows', () => {
  for (const dialect of DIALECTS) {
    it(`keeps each queue's logged starts, summing entries of the same time (${dialect})`, async () => {
      const db = await createTestDatabase(dialect);
      try {
        await migrateBelow(db, '0016');
        const insert =
          'INSERT INTO nudge_queues (name, rate_limit, rate_interval_ms, rate_starts) VALUES (?, ?, ?, ?)';
        await rawQuery(db, insert, [
          'api',
          10,
          60_000,
          JSON.stringify([
            [1_700_000_000_060, 3],
            [1_700_000_000_120, 2],
          ]),
        ]);
        await rawQuery(db, insert, [
          'mail',
          5,
          1_000,
          JSON.stringify([
            [1_700_000_000_001, 1],
            [1_700_000_000_001, 4],
          ]),
        ]);
        await rawQuery(db, insert, ['idle', null, null, '[]']);
        const store = createStore(db.url);
        try {
          assert.equal((await store.migrate())[0], 16, 'migration 0016 ran');
        } finally {
          await store.close();
        }
        const rows = await rawQuery<{ queue: string; t: number | string; n: number }>(
          db,
          'SELECT queue, t, n FROM nudge_rate_starts ORDER BY queue, t',
        );
        assert.deepEqual(
          rows.map((row) => [row.queue, Number(row.t), row.n]),
          [
            ['api', 1_700_000_000_060, 3],
            ['api', 1_700_000_000_120, 2],
            ['mail', 1_700_000_000_001, 5],
          ],
        );
        const columns = await rawQuery(
          db,
          dialect === 'sqlite'
            ? "SELECT name FROM pragma_table_info('nudge_queues') WHERE name = 'rate_starts'"
            : "SELECT column_name FROM information_schema.columns WHERE table_name = 'nudge_queues' AND column_name = 'rate_starts'",
        );
        assert.deepEqual(columns, [], 'the JSON log is gone');
      } finally {
        await db.drop();
      }
    });
  }
});

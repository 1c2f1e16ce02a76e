// Migration 0016 moves SQLite's rate logs from a JSON array in each queue's row to rows of
// nudge_rate_starts: the starts of a window in progress survive the upgrade, so the limit holds
// across it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { createStore } from '@nudge/store';
import { createSqliteDatabase } from '@nudge/test-databases';

const SQLITE_MIGRATIONS = fileURLToPath(
  new URL('../../../packages/store/migrations/sqlite/', import.meta.url),
);

/** Applies the migration files before `before` (a file name) and records them in the ledger. */
function migrateUpTo(path: string, before: string): void {
  const conn = new Database(path);
  try {
    conn.exec(`CREATE TABLE nudge_migrations (
      version    INTEGER PRIMARY KEY,
      name       TEXT NOT NULL,
      applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    ) STRICT`);
    const files = readdirSync(SQLITE_MIGRATIONS)
      .filter((file) => file.endsWith('.sql') && file < before)
      .sort();
    for (const file of files) {
      conn.exec(readFileSync(`${SQLITE_MIGRATIONS}${file}`, 'utf8'));
      conn
        .prepare('INSERT INTO nudge_migrations (version, name) VALUES (?, ?)')
        .run(Number(file.slice(0, 4)), file.slice(0, -4));
    }
  } finally {
    conn.close();
  }
}

describe('SQLite migration 0016: rate logs as rows', () => {
  it("keeps each queue's logged starts, summing entries of the same time", async () => {
    const db = await createSqliteDatabase();
    const path = db.url.slice('sqlite:'.length);
    try {
      migrateUpTo(path, '0016');
      const conn = new Database(path);
      try {
        const insert = conn.prepare(
          'INSERT INTO nudge_queues (name, rate_limit, rate_interval_ms, rate_starts) VALUES (?, ?, ?, ?)',
        );
        insert.run(
          'api',
          10,
          60_000,
          JSON.stringify([
            [1_700_000_000_060, 3],
            [1_700_000_000_120, 2],
          ]),
        );
        insert.run(
          'mail',
          5,
          1_000,
          JSON.stringify([
            [1_700_000_000_001, 1],
            [1_700_000_000_001, 4],
          ]),
        );
        insert.run('idle', null, null, '[]');
      } finally {
        conn.close();
      }
      const store = createStore(db.url);
      try {
        assert.equal((await store.migrate())[0], 16, 'migration 0016 ran');
      } finally {
        await store.close();
      }
      const after = new Database(path, { readonly: true });
      try {
        assert.deepEqual(after.prepare('SELECT queue, t, n FROM nudge_rate_starts ORDER BY queue, t').all(), [
          { queue: 'api', t: 1_700_000_000_060, n: 3 },
          { queue: 'api', t: 1_700_000_000_120, n: 2 },
          { queue: 'mail', t: 1_700_000_000_001, n: 5 },
        ]);
        const columns = after.prepare("SELECT name FROM pragma_table_info('nudge_queues')").all() as {
          name: string;
        }[];
        assert.ok(!columns.some((column) => column.name === 'rate_starts'), 'the JSON log is gone');
      } finally {
        after.close();
      }
    } finally {
      await db.drop();
    }
  });
});

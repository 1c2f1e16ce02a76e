import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { createStore } from '@nudge/store';
import { createSqliteDatabase, dumpSchema, type TestDatabase } from '@nudge/test-databases';

const SQLITE_MIGRATIONS = fileURLToPath(
  new URL('../../../packages/store/migrations/sqlite/', import.meta.url),
);

/** The ledger table as the migrator of that time created it (unchanged since). */
const OLD_LEDGER = `CREATE TABLE IF NOT EXISTS nudge_migrations (
  version    INTEGER PRIMARY KEY,
  name       TEXT NOT NULL,
  applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT`;

/** The migrations shipped before the renumbering, by name (later ones never had an old number). */
const SHIPPED_BEFORE = new Set([
  'create_jobs',
  'scheduled_and_instances',
  'idempotency_keys',
  'queues_progress_history',
  'instance_details',
  'retention',
  'schedules',
]);

/**
 * The SQLite migrations as they were numbered before the empty 0003_notify_new_jobs existed:
 * the same files (never edited) without it, each later one numbered one lower.
 */
function oldFileSet(): { version: number; name: string; sql: string }[] {
  return readdirSync(SQLITE_MIGRATIONS)
    .filter((file) => file.endsWith('.sql') && SHIPPED_BEFORE.has(file.slice(5, -4)))
    .sort()
    .map((file, index) => ({
      version: index + 1,
      name: `${String(index + 1).padStart(4, '0')}${file.slice(4, -4)}`,
      sql: readFileSync(`${SQLITE_MIGRATIONS}${file}`, 'utf8'),
    }));
}

/** Migrates `db` up to `upTo` with the old file set, as the migrator of that time did. */
function migrateTheOldWay(db: TestDatabase, upTo: number): void {
  const conn = new Database(db.url.slice('sqlite:'.length));
  try {
    conn.exec(OLD_LEDGER);
    for (const file of oldFileSet().filter((f) => f.version <= upTo)) {
      conn.exec(file.sql);
      conn.prepare('INSERT INTO nudge_migrations (version, name) VALUES (?, ?)').run(file.version, file.name);
    }
  } finally {
    conn.close();
  }
}

function ledger(db: TestDatabase): string[] {
  const conn = new Database(db.url.slice('sqlite:'.length), { readonly: true });
  try {
    const rows = conn.prepare('SELECT version, name FROM nudge_migrations ORDER BY version').all() as {
      version: number;
      name: string;
    }[];
    return rows.map(({ version, name }) => `${version} ${name}`);
  } finally {
    conn.close();
  }
}

describe('a SQLite database migrated before the renumbering', () => {
  it('the old file set is the one shipped before: 0003_idempotency_keys … 0007_schedules', () => {
    assert.deepEqual(
      oldFileSet().map((f) => f.name),
      [
        '0001_create_jobs',
        '0002_scheduled_and_instances',
        '0003_idempotency_keys',
        '0004_queues_progress_history',
        '0005_instance_details',
        '0006_retention',
        '0007_schedules',
      ],
    );
  });

  it('migrates to the schema and ledger of a fresh database, from every old version, without error', async () => {
    const fresh = await createSqliteDatabase();
    try {
      const store = createStore(fresh.url);
      await store.migrate();
      const latest = (await store.schemaState()).latest;
      await store.close();
      const schema = await dumpSchema(fresh);
      for (let upTo = 0; upTo <= oldFileSet().length; upTo += 1) {
        const old = await createSqliteDatabase();
        try {
          migrateTheOldWay(old, upTo);
          const upgraded = createStore(old.url);
          try {
            // Before migrating, the state counts the renamed migrations under their new numbers.
            const before = await upgraded.schemaState();
            assert.equal(before.applied, upTo < 3 ? upTo : upTo + 1, `state of old version ${upTo}`);
            const applied = await upgraded.migrate();
            assert.deepEqual(
              applied,
              Array.from({ length: latest - before.applied }, (_, i) => before.applied + i + 1),
              `migrations applied over old version ${upTo}`,
            );
            assert.deepEqual(await upgraded.schemaState(), { applied: latest, latest });
            assert.deepEqual(await upgraded.migrate(), [], 'a second migration finds nothing to do');
          } finally {
            await upgraded.close();
          }
          assert.equal(await dumpSchema(old), schema, `schema after old version ${upTo}`);
          assert.deepEqual(ledger(old), ledger(fresh), `ledger after old version ${upTo}`);
        } finally {
          await old.drop();
        }
      }
    } finally {
      await fresh.drop();
    }
  });
});

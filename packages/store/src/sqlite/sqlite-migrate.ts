import type Database from 'better-sqlite3';
import { loadMigrationFiles } from '../migration-files.js';
import { assertSchemaNotNewer } from '../schema-too-new.js';
import type { SchemaState } from '../store.js';

const LEDGER = `CREATE TABLE IF NOT EXISTS nudge_migrations (
  version    INTEGER PRIMARY KEY,
  name       TEXT NOT NULL,
  applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT`;

function appliedVersion(db: Database.Database): number {
  const exists = db
    .prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'nudge_migrations'`)
    .get();
  if (!exists) return 0;
  const row = db.prepare('SELECT max(version) AS v FROM nudge_migrations').get() as { v: number | null };
  return row.v ?? 0;
}

/**
 * Applies pending migrations inside one `BEGIN IMMEDIATE` transaction, so two processes starting
 * together serialize on SQLite's write lock and the second finds nothing left to do.
 * Files go through `db.exec()` because `prepare()` rejects multi-statement strings.
 *
 * @returns the versions applied
 * @throws NudgeError `SCHEMA_TOO_NEW` when the ledger holds a version this code does not know
 */
export function migrateSqlite(db: Database.Database): number[] {
  const files = loadMigrationFiles('sqlite');
  const run = db.transaction(() => {
    db.exec(LEDGER);
    const applied = appliedVersion(db);
    assertSchemaNotNewer(applied, files.length);
    const record = db.prepare('INSERT INTO nudge_migrations (version, name) VALUES (?, ?)');
    const done: number[] = [];
    for (const file of files.filter((f) => f.version > applied)) {
      db.exec(file.sql);
      record.run(file.version, file.name);
      done.push(file.version);
    }
    return done;
  });
  return run.immediate();
}

/** Applied and newest schema versions. */
export function sqliteSchemaState(db: Database.Database): SchemaState {
  return { applied: appliedVersion(db), latest: loadMigrationFiles('sqlite').length };
}

import type Database from 'better-sqlite3';

// Until SQLite got an empty 0003_notify_new_jobs (the twin of PostgreSQL's trigger), the SQLite
// files after 0002 were numbered one lower than PostgreSQL's. A ledger written then names them
// by their old numbers; without renumbering, the migrator would take old 0007_schedules for
// version 7 of the new list and apply 0008_schedules a second time.

/** The SQLite migrations as they were named before the renumbering, each now one higher. */
const OLD_NAMES: readonly string[] = [
  '0003_idempotency_keys',
  '0004_queues_progress_history',
  '0005_instance_details',
  '0006_retention',
  '0007_schedules',
];

/** The migration that took number 3: empty on SQLite, so recording it applied is true. */
const INSERTED = { version: 3, name: '0003_notify_new_jobs' };

/** Whether the ledger was written under the old numbering: its version 3 is `0003_idempotency_keys`. */
export function isOldSqliteLedger(db: Database.Database): boolean {
  const third = db.prepare('SELECT name FROM nudge_migrations WHERE version = 3').get() as
    { name: string } | undefined;
  return third?.name === OLD_NAMES[0];
}

/**
 * Rewrites a ledger written under the old numbering (its version 3 is `0003_idempotency_keys`)
 * to the new one: each old row moves one number up under its new name, and version 3 is recorded
 * as `0003_notify_new_jobs`, which is empty on SQLite. Run inside the migration transaction,
 * before the applied version is read; a ledger already renumbered, or never past version 2, is
 * left as it is.
 *
 * @returns whether the ledger was renumbered
 */
export function renumberOldSqliteLedger(db: Database.Database): boolean {
  if (!isOldSqliteLedger(db)) return false;
  const rows = db
    .prepare('SELECT version, name FROM nudge_migrations WHERE version >= 3 ORDER BY version DESC')
    .all() as { version: number; name: string }[];
  const move = db.prepare('UPDATE nudge_migrations SET version = ?, name = ? WHERE version = ?');
  // Highest first, so each row moves to a number already vacated.
  for (const { version, name } of rows) {
    if (!OLD_NAMES.includes(name)) continue;
    move.run(version + 1, `${String(version + 1).padStart(4, '0')}${name.slice(4)}`, version);
  }
  db.prepare(
    `INSERT INTO nudge_migrations (version, name, applied_at)
     SELECT ?, ?, applied_at FROM nudge_migrations WHERE version = 2`,
  ).run(INSERTED.version, INSERTED.name);
  return true;
}

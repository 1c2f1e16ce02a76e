import type Database from 'better-sqlite3';
import type { InstanceInput } from '../store.js';
import { toSqliteTime } from './sqlite-row.js';
import { SQLITE_NOW } from './sqlite-time.js';

/** The instance registry on SQLite; see {@link Store.registerInstance} and its siblings. */
export interface SqliteInstances {
  register(input: InstanceInput, now?: Date): void;
  touch(id: string, now?: Date): boolean;
  remove(id: string): void;
}

/** Prepares the instance registry statements. */
export function createSqliteInstances(db: Database.Database): SqliteInstances {
  const register = db.prepare(`
INSERT INTO nudge_instances (id, host, pid, kinds, started_at, last_seen_at)
VALUES (@id, @host, @pid, @kinds, ${SQLITE_NOW}, ${SQLITE_NOW})
ON CONFLICT (id) DO UPDATE
   SET host = excluded.host, pid = excluded.pid, kinds = excluded.kinds, last_seen_at = excluded.last_seen_at`);
  const touch = db.prepare(`UPDATE nudge_instances SET last_seen_at = ${SQLITE_NOW} WHERE id = @id`);
  const remove = db.prepare('DELETE FROM nudge_instances WHERE id = ?');
  return {
    register: (input, now) => {
      const { id, host, pid } = input;
      register.run({ id, host, pid, kinds: JSON.stringify(input.kinds), now: toSqliteTime(now) });
    },
    touch: (id, now) => touch.run({ id, now: toSqliteTime(now) }).changes === 1,
    remove: (id) => {
      remove.run(id);
    },
  };
}

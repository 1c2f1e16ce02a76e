import type Database from 'better-sqlite3';
import type { InstanceInfo, InstanceInput, ListInstancesInput } from '../store.js';
import { instanceFields, toInstanceQueues, toInstanceSlots } from '../instance-fields.js';
import { toSqliteTime } from './sqlite-row.js';
import { SQLITE_NOW, sqliteNowMinus } from './sqlite-time.js';

/** The instance registry on SQLite; see {@link Store.registerInstance} and its siblings. */
export interface SqliteInstances {
  register(input: InstanceInput, now?: Date): void;
  touch(id: string, now?: Date): boolean;
  remove(id: string): void;
  list(input: ListInstancesInput): InstanceInfo[];
  prune(notSeenForMs: number, now?: Date): number;
}

interface InstanceRow {
  id: string;
  host: string;
  pid: number;
  version: string | null;
  kinds: string;
  queues: string;
  slots: string;
  started_at: string;
  last_seen_at: string;
  live: number;
}

/** Prepares the instance registry statements. */
export function createSqliteInstances(db: Database.Database): SqliteInstances {
  const register = db.prepare(`
INSERT INTO nudge_instances (id, host, pid, kinds, version, queues, slots, started_at, last_seen_at)
VALUES (@id, @host, @pid, @kinds, @version, @queues, @slots, ${SQLITE_NOW}, ${SQLITE_NOW})
ON CONFLICT (id) DO UPDATE
   SET host = excluded.host, pid = excluded.pid, kinds = excluded.kinds, version = excluded.version,
       queues = excluded.queues, slots = excluded.slots, last_seen_at = excluded.last_seen_at`);
  const touch = db.prepare(`UPDATE nudge_instances SET last_seen_at = ${SQLITE_NOW} WHERE id = @id`);
  const remove = db.prepare('DELETE FROM nudge_instances WHERE id = ?');
  // Stored times are fixed-width ISO text, so text order is time order.
  const list = db.prepare(`
SELECT id, host, pid, version, kinds, queues, slots, started_at, last_seen_at,
       last_seen_at >= ${sqliteNowMinus('@ms')} AS live
  FROM nudge_instances
 WHERE NOT @liveOnly OR last_seen_at >= ${sqliteNowMinus('@ms')}
 ORDER BY id`);
  const prune = db.prepare(`DELETE FROM nudge_instances WHERE last_seen_at < ${sqliteNowMinus('@ms')}`);
  return {
    register: (input, now) => {
      const { id, host, pid } = input;
      const fields = instanceFields(input);
      register.run({ id, host, pid, kinds: JSON.stringify(input.kinds), ...fields, now: toSqliteTime(now) });
    },
    touch: (id, now) => touch.run({ id, now: toSqliteTime(now) }).changes === 1,
    remove: (id) => {
      remove.run(id);
    },
    list: (input) =>
      (
        list.all({
          ms: input.liveWithinMs,
          liveOnly: input.liveOnly === true ? 1 : 0,
          now: toSqliteTime(input.now),
        }) as InstanceRow[]
      ).map(sqliteInstanceInfo),
    prune: (notSeenForMs, now) => prune.run({ ms: notSeenForMs, now: toSqliteTime(now) }).changes,
  };
}

function sqliteInstanceInfo(row: InstanceRow): InstanceInfo {
  return {
    id: row.id,
    host: row.host,
    pid: row.pid,
    version: row.version,
    kinds: JSON.parse(row.kinds) as string[],
    queues: toInstanceQueues(JSON.parse(row.queues)),
    slots: toInstanceSlots(JSON.parse(row.slots)),
    startedAt: new Date(row.started_at),
    lastSeenAt: new Date(row.last_seen_at),
    live: row.live === 1,
  };
}

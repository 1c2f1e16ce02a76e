import type pg from 'pg';
import type { InstanceInfo, InstanceInput, ListInstancesInput } from '../store.js';
import { instanceFields, toInstanceQueues, toInstanceSlots } from '../instance-fields.js';
import { pgNow } from './pg-row.js';

const REGISTER = `
INSERT INTO nudge_instances (id, host, pid, kinds, version, queues, slots, started_at, last_seen_at)
VALUES ($1, $2, $3, $4::text[], $6, $7::jsonb, $8::jsonb, ${pgNow('$5')}, ${pgNow('$5')})
ON CONFLICT (id) DO UPDATE
   SET host = excluded.host, pid = excluded.pid, kinds = excluded.kinds, version = excluded.version,
       queues = excluded.queues, slots = excluded.slots, last_seen_at = excluded.last_seen_at`;

/** Records a running instance; see {@link Store.registerInstance}. */
export async function pgRegisterInstance(pool: pg.Pool, input: InstanceInput, now?: Date): Promise<void> {
  const { version, queues, slots } = instanceFields(input);
  await pool.query(REGISTER, [
    input.id,
    input.host,
    input.pid,
    input.kinds,
    now ?? null,
    version,
    queues,
    slots,
  ]);
}

/** Marks an instance seen; see {@link Store.touchInstance}. */
export async function pgTouchInstance(pool: pg.Pool, id: string, now?: Date): Promise<boolean> {
  const { rowCount } = await pool.query({
    name: 'nudge_touch_instance',
    text: `UPDATE nudge_instances SET last_seen_at = ${pgNow('$2')} WHERE id = $1`,
    values: [id, now ?? null],
  });
  return rowCount === 1;
}

/** Deletes an instance's row; see {@link Store.removeInstance}. */
export async function pgRemoveInstance(pool: pg.Pool, id: string): Promise<void> {
  await pool.query('DELETE FROM nudge_instances WHERE id = $1', [id]);
}

interface InstanceRow {
  id: string;
  host: string;
  pid: number;
  version: string | null;
  kinds: string[];
  queues: unknown;
  slots: unknown;
  started_at: Date;
  last_seen_at: Date;
  live: boolean;
}

// $1: now (NULL: the database clock); $2: live within, in ms; $3: live ones only.
const LIST = `
SELECT id, host, pid, version, kinds, queues, slots, started_at, last_seen_at,
       last_seen_at >= ${pgNow('$1')} - $2 * interval '1 millisecond' AS live
  FROM nudge_instances
 WHERE NOT $3 OR last_seen_at >= ${pgNow('$1')} - $2 * interval '1 millisecond'
 ORDER BY id`;

/** The registry; see {@link Store.listInstances}. */
export async function pgListInstances(
  db: pg.Pool | pg.PoolClient,
  input: ListInstancesInput,
): Promise<InstanceInfo[]> {
  const { rows } = await db.query<InstanceRow>(LIST, [
    input.now ?? null,
    input.liveWithinMs,
    input.liveOnly ?? false,
  ]);
  return rows.map((row) => ({
    id: row.id,
    host: row.host,
    pid: row.pid,
    version: row.version,
    kinds: row.kinds,
    queues: toInstanceQueues(row.queues),
    slots: toInstanceSlots(row.slots),
    startedAt: row.started_at,
    lastSeenAt: row.last_seen_at,
    live: row.live,
  }));
}

/** Deletes rows not seen for `notSeenForMs`; see {@link Store.pruneInstances}. */
export async function pgPruneInstances(pool: pg.Pool, notSeenForMs: number, now?: Date): Promise<number> {
  const { rowCount } = await pool.query(
    `DELETE FROM nudge_instances WHERE last_seen_at < ${pgNow('$2')} - $1 * interval '1 millisecond'`,
    [notSeenForMs, now ?? null],
  );
  return rowCount ?? 0;
}

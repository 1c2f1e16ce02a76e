import type pg from 'pg';
import type { InstanceInput } from '../store.js';
import { pgNow } from './pg-row.js';

const REGISTER = `
INSERT INTO nudge_instances (id, host, pid, kinds, started_at, last_seen_at)
VALUES ($1, $2, $3, $4::text[], ${pgNow('$5')}, ${pgNow('$5')})
ON CONFLICT (id) DO UPDATE
   SET host = excluded.host, pid = excluded.pid, kinds = excluded.kinds, last_seen_at = excluded.last_seen_at`;

/** Records a running instance; see {@link Store.registerInstance}. */
export async function pgRegisterInstance(pool: pg.Pool, input: InstanceInput, now?: Date): Promise<void> {
  await pool.query(REGISTER, [input.id, input.host, input.pid, input.kinds, now ?? null]);
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

import type pg from 'pg';
import type { ScheduleAdvance, ScheduleRegistration, ScheduleState } from '../schedule-types.js';
import { pgNow } from './pg-row.js';

interface ScheduleRow {
  name: string;
  cron: string;
  timezone: string;
  kind: string;
  last_tick_at: Date;
  next_tick_at: Date | null;
  updated_at: Date;
}

const toState = (row: ScheduleRow): ScheduleState => ({
  name: row.name,
  cron: row.cron,
  timezone: row.timezone,
  kind: row.kind,
  lastTickAt: row.last_tick_at,
  nextTickAt: row.next_tick_at,
  updatedAt: row.updated_at,
});

const REGISTER = `
INSERT INTO nudge_schedules (name, cron, timezone, kind, last_tick_at, updated_at)
SELECT s.name, s.cron, s.timezone, s.kind, ${pgNow('$2')}, ${pgNow('$2')}
  FROM jsonb_to_recordset($1::jsonb) AS s(name text, cron text, timezone text, kind text)
ON CONFLICT (name) DO UPDATE
   SET cron = excluded.cron, timezone = excluded.timezone, kind = excluded.kind,
       updated_at = excluded.updated_at
RETURNING *`;

// The tick only moves forward: two instances handling the same tick write the same row.
const ADVANCE = `
UPDATE nudge_schedules
   SET last_tick_at = greatest(last_tick_at, $2), next_tick_at = $3, updated_at = now()
 WHERE name = $1`;

/** See {@link Store.registerSchedules}. */
export async function pgRegisterSchedules(
  pool: pg.Pool,
  schedules: readonly ScheduleRegistration[],
  now?: Date,
): Promise<ScheduleState[]> {
  if (schedules.length === 0) return [];
  const { rows } = await pool.query<ScheduleRow>(REGISTER, [JSON.stringify(schedules), now ?? null]);
  return rows.map(toState).sort((a, b) => a.name.localeCompare(b.name));
}

/** See {@link Store.advanceSchedule}. */
export async function pgAdvanceSchedule(pool: pg.Pool, input: ScheduleAdvance): Promise<void> {
  await pool.query(ADVANCE, [input.name, input.tickAt, input.nextTickAt]);
}

/** See {@link Store.listSchedules}. */
export async function pgListSchedules(pool: pg.Pool): Promise<ScheduleState[]> {
  const { rows } = await pool.query<ScheduleRow>('SELECT * FROM nudge_schedules ORDER BY name');
  return rows.map(toState);
}

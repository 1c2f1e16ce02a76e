import type Database from 'better-sqlite3';
import type { ScheduleAdvance, ScheduleRegistration, ScheduleState } from '../schedule-types.js';
import { toSqliteTime } from './sqlite-row.js';
import { SQLITE_NOW } from './sqlite-time.js';

/** The schedule statements on SQLite; see {@link Store.registerSchedules} and its siblings. */
export interface SqliteSchedules {
  register(schedules: readonly ScheduleRegistration[], now?: Date): ScheduleState[];
  advance(input: ScheduleAdvance): void;
  list(): ScheduleState[];
}

interface ScheduleRow {
  name: string;
  cron: string;
  timezone: string;
  kind: string;
  last_tick_at: string;
  next_tick_at: string | null;
  updated_at: string;
}

const toState = (row: ScheduleRow): ScheduleState => ({
  name: row.name,
  cron: row.cron,
  timezone: row.timezone,
  kind: row.kind,
  lastTickAt: new Date(row.last_tick_at),
  nextTickAt: row.next_tick_at === null ? null : new Date(row.next_tick_at),
  updatedAt: new Date(row.updated_at),
});

/** Prepares the schedule statements. */
export function createSqliteSchedules(db: Database.Database): SqliteSchedules {
  const upsert = db.prepare(`
INSERT INTO nudge_schedules (name, cron, timezone, kind, last_tick_at, updated_at)
VALUES (@name, @cron, @timezone, @kind, ${SQLITE_NOW}, ${SQLITE_NOW})
ON CONFLICT (name) DO UPDATE
   SET cron = excluded.cron, timezone = excluded.timezone, kind = excluded.kind,
       updated_at = excluded.updated_at`);
  const byName = db.prepare<[string], ScheduleRow>('SELECT * FROM nudge_schedules WHERE name = ?');
  // Stored times are fixed-width ISO text: max() keeps the later tick.
  const advance = db.prepare(`
UPDATE nudge_schedules
   SET last_tick_at = max(last_tick_at, @tickAt), next_tick_at = @nextTickAt, updated_at = ${SQLITE_NOW}
 WHERE name = @name`);
  const list = db.prepare<[], ScheduleRow>('SELECT * FROM nudge_schedules ORDER BY name');
  const register = db.transaction((schedules: readonly ScheduleRegistration[], now: string | null) =>
    schedules.map((schedule) => {
      upsert.run({ ...schedule, now });
      const row = byName.get(schedule.name);
      if (!row) throw new Error(`schedule ${schedule.name} was not recorded`);
      return toState(row);
    }),
  );
  return {
    register: (schedules, now) =>
      register.immediate(schedules, toSqliteTime(now)).sort((a, b) => a.name.localeCompare(b.name)),
    advance: (input) =>
      void advance.run({
        name: input.name,
        tickAt: toSqliteTime(input.tickAt),
        nextTickAt: toSqliteTime(input.nextTickAt ?? undefined),
        now: null,
      }),
    list: () => list.all().map(toState),
  };
}

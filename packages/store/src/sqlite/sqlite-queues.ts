import type Database from 'better-sqlite3';
import type { QueueState } from '../store.js';

interface QueueRow {
  name: string;
  paused: number;
  updated_at: string | null;
  scheduled: number;
  pending: number;
  running: number;
}

// `@name`: one queue's name, or NULL for all. Unfinished jobs only, counted per queue; queues
// with a pause record but no such job are listed too (SQLite has no FULL JOIN: a UNION of names).
const LIST = `
WITH counts AS (
  SELECT queue,
         sum(status = 'SCHEDULED') AS scheduled,
         sum(status = 'PENDING') AS pending,
         sum(status = 'RUNNING') AS running
    FROM nudge_jobs
   WHERE status IN ('SCHEDULED', 'PENDING', 'RUNNING') AND (@name IS NULL OR queue = @name)
   GROUP BY queue
),
names AS (
  SELECT queue AS name FROM counts
  UNION SELECT name FROM nudge_queues WHERE @name IS NULL OR name = @name
)
SELECT n.name, coalesce(q.paused, 0) AS paused, q.updated_at,
       coalesce(c.scheduled, 0) AS scheduled, coalesce(c.pending, 0) AS pending,
       coalesce(c.running, 0) AS running
  FROM names AS n
  LEFT JOIN nudge_queues AS q ON q.name = n.name
  LEFT JOIN counts AS c ON c.queue = n.name
 ORDER BY n.name`;

const toQueueState = (row: QueueRow): QueueState => ({
  name: row.name,
  paused: row.paused === 1,
  updatedAt: row.updated_at === null ? null : new Date(row.updated_at),
  scheduled: row.scheduled,
  pending: row.pending,
  running: row.running,
});

/** The queue statements; see {@link Store.listQueues} and {@link Store.setQueuePaused}. */
export function createSqliteQueues(db: Database.Database): {
  list: () => QueueState[];
  setPaused: (name: string, paused: boolean) => QueueState;
} {
  const list = db.prepare<{ name: string | null }, QueueRow>(LIST);
  const upsert = db.prepare<{ name: string; paused: number }>(
    `INSERT INTO nudge_queues (name, paused, updated_at)
     VALUES (@name, @paused, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
     ON CONFLICT (name) DO UPDATE SET paused = excluded.paused, updated_at = excluded.updated_at`,
  );
  const setPaused = db.transaction((name: string, paused: boolean): QueueState => {
    upsert.run({ name, paused: paused ? 1 : 0 });
    const row = list.get({ name });
    if (!row) throw new Error(`queue ${name} vanished after it was ${paused ? 'paused' : 'resumed'}`);
    return toQueueState(row);
  });
  return {
    list: () => list.all({ name: null }).map(toQueueState),
    setPaused: (name, paused) => setPaused.immediate(name, paused),
  };
}

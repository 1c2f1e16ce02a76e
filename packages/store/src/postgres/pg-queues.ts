import type pg from 'pg';
import type { QueueState } from '../store.js';

interface QueueRow {
  name: string;
  paused: boolean;
  updated_at: Date | null;
  scheduled: string;
  pending: string;
  running: string;
}

const toQueueState = (row: QueueRow): QueueState => ({
  name: row.name,
  paused: row.paused,
  updatedAt: row.updated_at,
  scheduled: Number(row.scheduled),
  pending: Number(row.pending),
  running: Number(row.running),
});

// `$1`: one queue's name, or NULL for all. Unfinished jobs only: each status is read through its partial index, never the finished rows.
const LIST = `
WITH counts AS (
  SELECT queue,
         count(*) FILTER (WHERE status = 'SCHEDULED') AS scheduled,
         count(*) FILTER (WHERE status = 'PENDING') AS pending,
         count(*) FILTER (WHERE status = 'RUNNING') AS running
    FROM nudge_jobs
   WHERE status IN ('SCHEDULED', 'PENDING', 'RUNNING') AND ($1::text IS NULL OR queue = $1)
   GROUP BY queue
)
SELECT coalesce(q.name, c.queue) AS name, coalesce(q.paused, false) AS paused, q.updated_at,
       coalesce(c.scheduled, 0) AS scheduled, coalesce(c.pending, 0) AS pending,
       coalesce(c.running, 0) AS running
  FROM (SELECT * FROM nudge_queues WHERE $1::text IS NULL OR name = $1) AS q FULL JOIN counts AS c ON c.queue = q.name
 ORDER BY 1`;

/** Every queue with unfinished jobs or a pause record; see {@link Store.listQueues}. */
export async function pgListQueues(pool: pg.Pool): Promise<QueueState[]> {
  const { rows } = await pool.query<QueueRow>(LIST, [null]);
  return rows.map(toQueueState);
}

/** Pauses or resumes a queue; see {@link Store.setQueuePaused}. */
export async function pgSetQueuePaused(pool: pg.Pool, name: string, paused: boolean): Promise<QueueState> {
  await pool.query(
    `INSERT INTO nudge_queues (name, paused, updated_at) VALUES ($1, $2, now())
     ON CONFLICT (name) DO UPDATE SET paused = excluded.paused, updated_at = excluded.updated_at`,
    [name, paused],
  );
  const { rows } = await pool.query<QueueRow>(LIST, [name]);
  const state = rows[0] && toQueueState(rows[0]);
  if (!state) throw new Error(`queue ${name} vanished after it was ${paused ? 'paused' : 'resumed'}`);
  return state;
}

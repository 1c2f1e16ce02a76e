import type pg from 'pg';
import type { ListQueuesQuery, QueueLimitsPatch, QueueState } from '../store.js';
import { NEW_JOBS_CHANNEL } from './pg-job-listener.js';

interface QueueRow {
  name: string;
  paused: boolean;
  updated_at: Date | null;
  concurrency: number | null;
  rate_limit: number | null;
  rate_interval_ms: number | null;
  key_concurrency: number | null;
  waiting: string;
  scheduled: string;
  pending: string;
  running: string;
}

const toQueueState = (row: QueueRow): QueueState => ({
  name: row.name,
  paused: row.paused,
  updatedAt: row.updated_at,
  concurrency: row.concurrency,
  rateLimit:
    row.rate_limit === null || row.rate_interval_ms === null
      ? null
      : { limit: row.rate_limit, intervalMs: row.rate_interval_ms },
  keyConcurrency: row.key_concurrency,
  waiting: Number(row.waiting),
  scheduled: Number(row.scheduled),
  pending: Number(row.pending),
  running: Number(row.running),
});

// A queue's unfinished jobs by status, per `queue` (in a GROUP BY), and the columns of its view
// from `q` (its nudge_queues row) and `c` (those counts).
const STATUS_COUNTS = `count(*) FILTER (WHERE status = 'WAITING') AS waiting,
         count(*) FILTER (WHERE status = 'SCHEDULED') AS scheduled,
         count(*) FILTER (WHERE status = 'PENDING') AS pending,
         count(*) FILTER (WHERE status = 'RUNNING') AS running`;
const QUEUE_FIELDS = `q.concurrency, q.rate_limit, q.rate_interval_ms, q.key_concurrency,
       coalesce(c.waiting, 0) AS waiting, coalesce(c.scheduled, 0) AS scheduled, coalesce(c.pending, 0) AS pending,
       coalesce(c.running, 0) AS running`;

// `$1`: one queue's name, or NULL for all. Unfinished jobs only, read through the index of
// unfinished rows (`nudge_jobs_unfinished`: finished rows have a finished_at), never the finished ones.
const LIST = `
WITH counts AS (
  SELECT queue,
         ${STATUS_COUNTS}
    FROM nudge_jobs
   WHERE finished_at IS NULL AND ($1::text IS NULL OR queue = $1)
   GROUP BY queue
)
SELECT coalesce(q.name, c.queue) AS name, coalesce(q.paused, false) AS paused, q.updated_at,
       ${QUEUE_FIELDS}
  FROM (SELECT * FROM nudge_queues WHERE $1::text IS NULL OR name = $1) AS q FULL JOIN counts AS c ON c.queue = q.name
 ORDER BY 1`;

// A page of queues: $1 the name to list after (NULL: from the first), $2 the most (NULL: all),
// $3 true for recorded queues only. The names are picked first, each source in name order up to
// the page size, so only the page's own queues have their unfinished jobs counted.
const PAGE = `
WITH names AS (
  SELECT name FROM (
    (SELECT DISTINCT queue AS name FROM nudge_jobs
      WHERE finished_at IS NULL AND NOT $3::boolean AND ($1::text IS NULL OR queue > $1)
      ORDER BY 1 LIMIT $2)
    UNION
    (SELECT name FROM nudge_queues WHERE $1::text IS NULL OR name > $1 ORDER BY 1 LIMIT $2)
  ) AS n ORDER BY 1 LIMIT $2
),
counts AS (
  SELECT queue,
         ${STATUS_COUNTS}
    FROM nudge_jobs
   WHERE finished_at IS NULL AND queue IN (SELECT name FROM names)
   GROUP BY queue
)
SELECT n.name, coalesce(q.paused, false) AS paused, q.updated_at,
       ${QUEUE_FIELDS}
  FROM names AS n LEFT JOIN nudge_queues AS q ON q.name = n.name LEFT JOIN counts AS c ON c.queue = n.name
 ORDER BY 1`;

// A limit the patch leaves out keeps its value: `$n::boolean` says whether the patch sets it. The
// row is locked FOR UPDATE first (the upsert alone would lock it FOR NO KEY UPDATE): claims that
// share the queue hold it FOR KEY SHARE, and each bounds what the others in flight take by the
// share size the limits give (migration 0018), so the limits must not change under them.
const SET_LIMITS = `
WITH locked AS (SELECT name FROM nudge_queues WHERE name = $1::text FOR UPDATE)
INSERT INTO nudge_queues AS q (name, concurrency, rate_limit, rate_interval_ms, key_concurrency, updated_at)
SELECT $1::text, $3::int, $5::int, $6::int, $8::int, now() FROM (SELECT count(*) FROM locked) AS l
ON CONFLICT (name) DO UPDATE SET
  concurrency = CASE WHEN $2::boolean THEN excluded.concurrency ELSE q.concurrency END,
  rate_limit = CASE WHEN $4::boolean THEN excluded.rate_limit ELSE q.rate_limit END,
  rate_interval_ms = CASE WHEN $4::boolean THEN excluded.rate_interval_ms ELSE q.rate_interval_ms END,
  key_concurrency = CASE WHEN $7::boolean THEN excluded.key_concurrency ELSE q.key_concurrency END,
  -- Jobs may have started while the queue had no concurrency limit: the next claim counts them.
  counted_running = NULL,
  updated_at = excluded.updated_at`;

async function readQueue(pool: pg.Pool, name: string, change: string): Promise<QueueState> {
  const { rows } = await pool.query<QueueRow>(LIST, [name]);
  const state = rows[0] && toQueueState(rows[0]);
  if (!state) throw new Error(`queue ${name} vanished after it was ${change}`);
  return state;
}

/** Queues with unfinished jobs or a record (a pause, limits), or a page of them; see {@link Store.listQueues}. */
export async function pgListQueues(pool: pg.Pool, query: ListQueuesQuery = {}): Promise<QueueState[]> {
  if (query.limit === 0) return [];
  const { rows } =
    query.after === undefined && query.limit === undefined && !query.recordedOnly
      ? await pool.query<QueueRow>(LIST, [null])
      : await pool.query<QueueRow>(PAGE, [
          query.after ?? null,
          query.limit ?? null,
          query.recordedOnly ?? false,
        ]);
  return rows.map(toQueueState);
}

/** Pauses or resumes a queue; see {@link Store.setQueuePaused}. */
export async function pgSetQueuePaused(pool: pg.Pool, name: string, paused: boolean): Promise<QueueState> {
  await pool.query(
    `INSERT INTO nudge_queues (name, paused, updated_at) VALUES ($1, $2, now())
     ON CONFLICT (name) DO UPDATE SET paused = excluded.paused, updated_at = excluded.updated_at`,
    [name, paused],
  );
  return readQueue(pool, name, paused ? 'paused' : 'resumed');
}

/** Sets or removes a queue's limits; see {@link Store.setQueueLimits}. */
export async function pgSetQueueLimits(
  pool: pg.Pool,
  name: string,
  patch: QueueLimitsPatch,
): Promise<QueueState> {
  await pool.query(SET_LIMITS, [
    name,
    patch.concurrency !== undefined,
    patch.concurrency ?? null,
    patch.rateLimit !== undefined,
    patch.rateLimit?.limit ?? null,
    patch.rateLimit?.intervalMs ?? null,
    patch.keyConcurrency !== undefined,
    patch.keyConcurrency ?? null,
  ]);
  // Every instance claims again at once: a limit raised or lifted may let waiting jobs start.
  await pool.query('SELECT pg_notify($1, $2)', [NEW_JOBS_CHANNEL, '']);
  return readQueue(pool, name, 'given limits');
}

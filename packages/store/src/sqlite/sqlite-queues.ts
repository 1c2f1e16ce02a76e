import type Database from 'better-sqlite3';
import type { ListQueuesQuery, QueueLimitsPatch, QueueState } from '../store.js';

interface QueueRow {
  name: string;
  paused: number;
  updated_at: string | null;
  concurrency: number | null;
  rate_limit: number | null;
  rate_interval_ms: number | null;
  key_concurrency: number | null;
  waiting: number;
  scheduled: number;
  pending: number;
  running: number;
}

// A queue's unfinished jobs by status, per `queue` (in a GROUP BY); and the view of each queue of
// `names` (CTE) from its nudge_queues row and those counts (CTE `counts`), by name.
const STATUS_COUNTS = `sum(status = 'WAITING') AS waiting,
         sum(status = 'SCHEDULED') AS scheduled,
         sum(status = 'PENDING') AS pending,
         sum(status = 'RUNNING') AS running`;
const QUEUE_VIEWS = `SELECT n.name, coalesce(q.paused, 0) AS paused, q.updated_at,
       q.concurrency, q.rate_limit, q.rate_interval_ms, q.key_concurrency,
       coalesce(c.waiting, 0) AS waiting, coalesce(c.scheduled, 0) AS scheduled, coalesce(c.pending, 0) AS pending,
       coalesce(c.running, 0) AS running
  FROM names AS n
  LEFT JOIN nudge_queues AS q ON q.name = n.name
  LEFT JOIN counts AS c ON c.queue = n.name
 ORDER BY n.name`;

// `@name`: one queue's name, or NULL for all. Unfinished jobs only (through the index of unfinished
// rows, `nudge_jobs_unfinished`), counted per queue; queues
// with a record (a pause, limits) but no such job are listed too (SQLite has no FULL JOIN: a
// UNION of names).
const LIST = `
WITH counts AS (
  SELECT queue,
         ${STATUS_COUNTS}
    FROM nudge_jobs
   WHERE finished_at IS NULL AND (@name IS NULL OR queue = @name)
   GROUP BY queue
),
names AS (
  SELECT queue AS name FROM counts
  UNION SELECT name FROM nudge_queues WHERE @name IS NULL OR name = @name
)
${QUEUE_VIEWS}`;

// A page of queues: @after the name to list after (NULL: from the first), @limit the most (-1:
// all), @recordedOnly 1 for recorded queues only. The names are picked first, each source in name
// order up to the page size, so only the page's own queues have their unfinished jobs counted.
const PAGE = `
WITH names AS (
  SELECT name FROM (
    SELECT * FROM (SELECT DISTINCT queue AS name FROM nudge_jobs
      WHERE finished_at IS NULL AND NOT @recordedOnly AND (@after IS NULL OR queue > @after)
      ORDER BY 1 LIMIT @limit)
    UNION
    SELECT * FROM (SELECT name FROM nudge_queues WHERE @after IS NULL OR name > @after ORDER BY 1 LIMIT @limit)
  ) ORDER BY 1 LIMIT @limit
),
counts AS (
  SELECT queue,
         ${STATUS_COUNTS}
    FROM nudge_jobs
   WHERE finished_at IS NULL AND queue IN (SELECT name FROM names)
   GROUP BY queue
)
${QUEUE_VIEWS}`;

const NOW = `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`;

// A limit the patch leaves out keeps its value: `@setX` says whether the patch sets it.
const SET_LIMITS = `
INSERT INTO nudge_queues AS q (name, concurrency, rate_limit, rate_interval_ms, key_concurrency, updated_at)
VALUES (@name, @concurrency, @rateLimit, @rateIntervalMs, @keyConcurrency, ${NOW})
ON CONFLICT (name) DO UPDATE SET
  concurrency = CASE WHEN @setConcurrency THEN excluded.concurrency ELSE q.concurrency END,
  rate_limit = CASE WHEN @setRate THEN excluded.rate_limit ELSE q.rate_limit END,
  rate_interval_ms = CASE WHEN @setRate THEN excluded.rate_interval_ms ELSE q.rate_interval_ms END,
  key_concurrency = CASE WHEN @setKeyConcurrency THEN excluded.key_concurrency ELSE q.key_concurrency END,
  updated_at = excluded.updated_at`;

const toQueueState = (row: QueueRow): QueueState => ({
  name: row.name,
  paused: row.paused === 1,
  updatedAt: row.updated_at === null ? null : new Date(row.updated_at),
  concurrency: row.concurrency,
  rateLimit:
    row.rate_limit === null || row.rate_interval_ms === null
      ? null
      : { limit: row.rate_limit, intervalMs: row.rate_interval_ms },
  keyConcurrency: row.key_concurrency,
  waiting: row.waiting,
  scheduled: row.scheduled,
  pending: row.pending,
  running: row.running,
});

/** The queue statements; see {@link Store.listQueues}, {@link Store.setQueuePaused} and {@link Store.setQueueLimits}. */
export function createSqliteQueues(db: Database.Database): {
  list: (query?: ListQueuesQuery) => QueueState[];
  setPaused: (name: string, paused: boolean) => QueueState;
  setLimits: (name: string, patch: QueueLimitsPatch) => QueueState;
} {
  const list = db.prepare<{ name: string | null }, QueueRow>(LIST);
  const page = db.prepare<{ after: string | null; limit: number; recordedOnly: number }, QueueRow>(PAGE);
  const upsert = db.prepare<{ name: string; paused: number }>(
    `INSERT INTO nudge_queues (name, paused, updated_at)
     VALUES (@name, @paused, ${NOW})
     ON CONFLICT (name) DO UPDATE SET paused = excluded.paused, updated_at = excluded.updated_at`,
  );
  const upsertLimits = db.prepare<Record<string, number | string | null>>(SET_LIMITS);
  const read = (name: string, change: string): QueueState => {
    const row = list.get({ name });
    if (!row) throw new Error(`queue ${name} vanished after it was ${change}`);
    return toQueueState(row);
  };
  const setPaused = db.transaction((name: string, paused: boolean): QueueState => {
    upsert.run({ name, paused: paused ? 1 : 0 });
    return read(name, paused ? 'paused' : 'resumed');
  });
  const setLimits = db.transaction((name: string, patch: QueueLimitsPatch): QueueState => {
    upsertLimits.run({
      name,
      setConcurrency: patch.concurrency === undefined ? 0 : 1,
      concurrency: patch.concurrency ?? null,
      setRate: patch.rateLimit === undefined ? 0 : 1,
      rateLimit: patch.rateLimit?.limit ?? null,
      rateIntervalMs: patch.rateLimit?.intervalMs ?? null,
      setKeyConcurrency: patch.keyConcurrency === undefined ? 0 : 1,
      keyConcurrency: patch.keyConcurrency ?? null,
    });
    return read(name, 'given limits');
  });
  return {
    list: (query = {}) => {
      if (query.limit === 0) return [];
      const rows =
        query.after === undefined && query.limit === undefined && !query.recordedOnly
          ? list.all({ name: null })
          : page.all({
              after: query.after ?? null,
              limit: query.limit ?? -1,
              recordedOnly: query.recordedOnly ? 1 : 0,
            });
      return rows.map(toQueueState);
    },
    setPaused: (name, paused) => setPaused.immediate(name, paused),
    setLimits: (name, patch) => setLimits.immediate(name, patch),
  };
}

// The SQL of cluster-wide queue limits in a SQLite claim (see sqlite-claim.ts). SQLite claims
// run one at a time (BEGIN IMMEDIATE), so each one counts what the previous one committed.
import { SQLITE_NOW, STORE_CLOCK } from './sqlite-time.js';
import { RATE_LOG_GRAINS } from '../rate-log-grain.js';

/** SQL: the database clock as epoch ms (a real number). */
export const SQLITE_NOW_MS = `((julianday(${STORE_CLOCK}) - 2440587.5) * 86400000.0)`;

/** SQL: the `nudge_queues` row (alias `q`) has a limit of any sort. */
export const SQLITE_LIMITED =
  '(q.concurrency IS NOT NULL OR q.rate_limit IS NOT NULL OR q.key_concurrency IS NOT NULL)';

/** SQL: the rows of a queue's rate log (alias `q`) still inside its window (alias `w`; migration 0016). */
const STARTS_IN_WINDOW = `FROM nudge_rate_starts AS w
   WHERE w.queue = q.name AND w.t > ${SQLITE_NOW_MS} - q.rate_interval_ms`;

/**
 * Each limited, unpaused queue (of `@served`, a JSON array, or every queue when NULL) with its
 * running jobs, its starts in the current rate window and the oldest of them (epoch ms), and its
 * `room`: how many more of its jobs may start now, cluster-wide.
 */
export const SQLITE_LIMITS = `
SELECT s.*, max(0, min(coalesce(s.concurrency - s.running, 2147483647),
                       coalesce(s.rate_limit - s.started, 2147483647))) AS room
  FROM (
    SELECT q.name, q.concurrency, q.rate_limit, q.rate_interval_ms, q.key_concurrency,
           (SELECT count(*) FROM nudge_jobs AS r WHERE r.status = 'RUNNING' AND r.queue = q.name) AS running,
           (SELECT coalesce(sum(w.n), 0) ${STARTS_IN_WINDOW}) AS started,
           (SELECT min(w.t) ${STARTS_IN_WINDOW}) AS oldest_start
      FROM nudge_queues AS q
     WHERE q.paused = 0 AND ${SQLITE_LIMITED}
       AND (@served IS NULL OR q.name IN (SELECT value FROM json_each(@served)))
  ) AS s`;

/** SQL: a queue's rate grain (alias `q`), ms (see {@link RATE_LOG_GRAINS}). */
const RATE_GRAIN = `max(1, q.rate_interval_ms / ${RATE_LOG_GRAINS})`;

/**
 * Logs `@started` starts now in the rate log of queue `@name` (migration 0016). The starts count
 * from now rounded UP to the queue's grain, so a start counts a little longer than it should,
 * never shorter.
 */
export const SQLITE_LOG_STARTS = `
INSERT INTO nudge_rate_starts (queue, t, n)
SELECT q.name, (CAST(${SQLITE_NOW_MS} AS INTEGER) / ${RATE_GRAIN} + 1) * ${RATE_GRAIN}, @started
  FROM nudge_queues AS q
 WHERE q.name = @name AND q.rate_limit IS NOT NULL
ON CONFLICT (queue, t) DO UPDATE SET n = n + excluded.n`;

/** Deletes the rows of queue `@name`'s rate log that left its window. */
export const SQLITE_PRUNE_STARTS = `
DELETE FROM nudge_rate_starts
 WHERE queue = @name
   AND t <= ${SQLITE_NOW_MS} - (SELECT q.rate_interval_ms FROM nudge_queues AS q WHERE q.name = @name)`;

/**
 * Whether any queue outside `@apart` (a JSON array of queue names) has a pending row: a walk over
 * the distinct queues of the pending rows in the database's own order (one probe of the
 * `nudge_jobs_queue_claimable` index each), which stops at the first queue not in `@apart`.
 * Answers `found` 1 or 0.
 */
export const SQLITE_OTHERS_PENDING = `
WITH RECURSIVE walk(name) AS (
  SELECT (SELECT min(queue) FROM nudge_jobs WHERE status = 'PENDING')
  UNION ALL
  SELECT (SELECT min(queue) FROM nudge_jobs WHERE status = 'PENDING' AND queue > walk.name)
    FROM walk
   WHERE walk.name IN (SELECT value FROM json_each(@apart))
)
SELECT EXISTS (
  SELECT 1 FROM walk WHERE name IS NOT NULL AND name NOT IN (SELECT value FROM json_each(@apart))
) AS found`;

/**
 * The first `@window` due pending rows of queue `@queue` in claim order, whatever their kind (a
 * walk of `nudge_jobs_queue_claimable`): `read`, how many there are, and `matched`, those of one of
 * `@kinds` (a JSON array). Bounded: a search for a kind alone would read every row of the queue
 * when none is of that kind (100,000 of a busy key took 11 ms a claim).
 */
export const SQLITE_DUE_PENDING = `
SELECT count(*) AS read, coalesce(sum(kind IN (SELECT value FROM json_each(@kinds))), 0) AS matched
  FROM (SELECT kind FROM nudge_jobs INDEXED BY nudge_jobs_queue_claimable
         WHERE status = 'PENDING' AND queue = @queue AND run_at <= ${SQLITE_NOW}
         LIMIT @window)`;

/**
 * As {@link SQLITE_DUE_PENDING}, for the due pending rows of queue `@queue` that have a
 * concurrency key: the first `@window` of `nudge_jobs_key_claimable` (migration 0018), which holds
 * only such rows.
 */
export const SQLITE_DUE_KEYED = `
SELECT count(*) AS read, coalesce(sum(kind IN (SELECT value FROM json_each(@kinds))), 0) AS matched
  FROM (SELECT kind FROM nudge_jobs INDEXED BY nudge_jobs_key_claimable
         WHERE status = 'PENDING' AND concurrency_key IS NOT NULL AND queue = @queue
           AND run_at <= ${SQLITE_NOW}
         LIMIT @window)`;

// The SQL of cluster-wide queue limits in a PostgreSQL claim (see pg-claim-sql.ts).
import { RATE_LOG_GRAINS } from '../rate-log-grain.js';

/** SQL: the `nudge_queues` row (alias `alias`, or unqualified) has a limit of any sort. */
export function limitedQueue(alias?: string): string {
  const c = alias === undefined ? '' : `${alias}.`;
  return `(${c}concurrency IS NOT NULL OR ${c}rate_limit IS NOT NULL OR ${c}key_concurrency IS NOT NULL)`;
}

/**
 * The `others` CTE: whether a queue outside the claim's own candidates has a pending row, as
 * `found`. A walk over the distinct queues of the pending rows in index order (one probe of
 * `nudge_jobs_queue_claimable` each) that stops at the first queue neither paused nor limited nor
 * in `apartParam` (a text array: the queues this instance caps). Without it, the candidate of
 * the other queues would read every pending row of a limited or paused queue, in claim order, to
 * find none: a claim would cost as much as that queue's backlog.
 */
export function pgOthersPendingCte(apartParam: string): string {
  const outside = `(SELECT name FROM nudge_queues WHERE paused OR ${limitedQueue()} UNION ALL SELECT unnest(${apartParam}::text[]))`;
  return `others AS (
  SELECT EXISTS (
    WITH RECURSIVE walk(name) AS (
      SELECT (SELECT min(queue) FROM nudge_jobs WHERE status = 'PENDING')
      UNION ALL
      SELECT (SELECT min(queue) FROM nudge_jobs WHERE status = 'PENDING' AND queue > walk.name)
        FROM walk WHERE walk.name IN ${outside}
    )
    SELECT 1 FROM walk WHERE name IS NOT NULL AND name NOT IN ${outside}
  ) AS found
)`;
}

/**
 * The `limits` CTE: locks the rows of the queues the caller names (`namesParam`, a text array;
 * `wantsParam`, the most rows this claim can take of each; `shareParam`, whether to ask to share
 * each; `slotsParam`, the share slots) and reads, after the lock, each one that is limited and not
 * paused, with its running jobs, its starts in the current rate window (and the oldest of them,
 * epoch ms), `at` (the time the claim counts by: the lock's), `shared`, `free` (how many more of
 * its jobs may start now, cluster-wide) and `room` (how many this claim may start). One call of
 * `nudge_lock_limited_queues` (migration 0014), whose queries see what the previous claim of these
 * queues committed, though this statement's snapshot is older.
 */
export function pgLimitsCte(
  namesParam: string,
  wantsParam: string,
  shareParam: string,
  slotsParam: string,
): string {
  return `limits AS (
  SELECT * FROM nudge_lock_limited_queues(${namesParam}::text[], ${wantsParam}::int[], ${shareParam}::boolean[],
                                          ${slotsParam}::int, $1::timestamptz)
)`;
}

/**
 * SQL: the candidate row `alias` has a concurrency key with room under `keyLimit` (SQL), and no
 * other claim in flight is taking a row with that key (migration 0014's `nudge_key_has_room`).
 */
export const keyHasRoom = (alias: string, keyLimit: string): string =>
  `nudge_key_has_room(${alias}.queue, ${alias}.concurrency_key, ${keyLimit})`;

/** SQL: the running jobs of the candidate row `alias` with its concurrency key, counted after the lock. */
export const runningWithKey = (alias: string): string =>
  `nudge_running_with_key(${alias}.queue, ${alias}.concurrency_key)`;

/**
 * The CTEs that write what this claim changed of each locked queue (migrations 0014 and 0016).
 * The concurrency bound: a claim that shares the queue adds its starts to the row of its slot in
 * `nudge_queue_slots` (`slot_written`), which no other claim holds meanwhile; one that does not
 * share runs alone and adds them to the queue's `starts_since_count` (`queue_written`), or, when
 * it counted the running jobs, sets `counted_running` to that count, `starts_since_count` to its
 * starts and the slots' starts to 0 (`slots_reset`). The rate: a rate-limited queue gets this
 * claim's starts logged in `nudge_rate_starts` under its slot (-1 when not shared) and its time
 * rounded UP to the grain ({@link RATE_LOG_GRAINS}); the rows that left the window at `limits`'
 * `at` are deleted, except those another claim holds (the next claim deletes them). No two
 * claims in flight write the same row of these tables.
 */
export function pgLimitedQueueUpdate(): string {
  const grain = `greatest(1, l.rate_interval_ms / ${RATE_LOG_GRAINS})`;
  const atMs = '(extract(epoch FROM l.at) * 1000)';
  return `claimed_per_queue AS (
  SELECT l.*, c.n
    FROM limits AS l
    JOIN (SELECT queue, count(*)::int AS n FROM claimed GROUP BY queue) AS c ON c.queue = l.name
),
queue_written AS (
  UPDATE nudge_queues AS q
     SET counted_running = CASE WHEN l.recounted THEN l.running::int ELSE q.counted_running END,
         starts_since_count = CASE WHEN l.recounted THEN coalesce(c.n, 0)
                                   ELSE q.starts_since_count + coalesce(c.n, 0) END
    FROM limits AS l
    LEFT JOIN claimed_per_queue AS c ON c.name = l.name
   WHERE q.name = l.name AND NOT l.shared
     AND (l.recounted OR (c.n IS NOT NULL AND l.concurrency IS NOT NULL))
),
slots_reset AS (
  UPDATE nudge_queue_slots AS k SET starts = 0
    FROM limits AS l
   WHERE k.queue = l.name AND l.recounted AND k.starts <> 0
),
slot_written AS (
  INSERT INTO nudge_queue_slots AS k (queue, slot, starts)
  SELECT c.name, c.slot, c.n FROM claimed_per_queue AS c WHERE c.shared AND c.concurrency IS NOT NULL
  ON CONFLICT (queue, slot) DO UPDATE SET starts = k.starts + excluded.starts
),
rate_logged AS (
  INSERT INTO nudge_rate_starts AS r (queue, t, slot, n)
  SELECT l.name, (ceil(${atMs} / ${grain}) * ${grain})::bigint, coalesce(l.slot, -1), l.n
    FROM claimed_per_queue AS l
   WHERE l.rate_limit IS NOT NULL
  ON CONFLICT (queue, t, slot) DO UPDATE SET n = r.n + excluded.n
),
rate_pruned AS (
  DELETE FROM nudge_rate_starts AS r
   WHERE (r.queue, r.t, r.slot) IN (
           SELECT o.queue, o.t, o.slot FROM nudge_rate_starts AS o
             JOIN claimed_per_queue AS l ON l.name = o.queue
            WHERE l.rate_limit IS NOT NULL AND o.t <= ${atMs} - l.rate_interval_ms
              FOR UPDATE OF o SKIP LOCKED)
)`;
}

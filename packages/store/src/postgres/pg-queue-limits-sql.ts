// The SQL of cluster-wide queue limits in a PostgreSQL claim (see pg-claim-sql.ts).

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
 * The `queue_written`, `rate_logged` and `rate_pruned` CTEs: write what this claim changed of each
 * locked queue. A queue with a concurrency limit gets this claim's starts added to
 * `starts_since_count`, or, when the claim counted its running jobs, `counted_running` set to
 * that count and `starts_since_count` to the claim's starts (migration 0014). A rate-limited
 * queue gets this claim's starts logged in `nudge_rate_starts` (migration 0016) under its time
 * rounded UP to a thousandth of the interval, so a start counts a little longer than it should,
 * never shorter, and the log keeps at most about 1,000 rows per queue; the rows that left the
 * window at `limits`' `at` are deleted, except those another claim holds (the next claim
 * deletes them). The log is written from the queue's UPDATE: two claims of a queue wait on each
 * other at that row, never at a row of the log.
 */
export function pgLimitedQueueUpdate(): string {
  const grain = 'greatest(1, w.rate_interval_ms / 1000)';
  return `queue_written AS (
  UPDATE nudge_queues AS q
     SET counted_running = CASE WHEN l.recounted THEN l.running::int ELSE q.counted_running END,
         starts_since_count = CASE WHEN l.recounted THEN coalesce(c.n, 0)
                                   ELSE q.starts_since_count + coalesce(c.n, 0) END
    FROM limits AS l
    LEFT JOIN (SELECT queue, count(*)::int AS n FROM claimed GROUP BY queue) AS c ON c.queue = l.name
   WHERE q.name = l.name
     AND (l.recounted OR (c.n IS NOT NULL AND (l.concurrency IS NOT NULL OR l.rate_limit IS NOT NULL)))
  RETURNING q.name, l.rate_limit, l.rate_interval_ms, extract(epoch FROM l.at) * 1000 AS at_ms, c.n
),
rate_logged AS (
  INSERT INTO nudge_rate_starts AS r (queue, t, n)
  SELECT w.name, (ceil(w.at_ms / ${grain}) * ${grain})::bigint, w.n
    FROM queue_written AS w
   WHERE w.rate_limit IS NOT NULL AND w.n IS NOT NULL
  ON CONFLICT (queue, t) DO UPDATE SET n = r.n + excluded.n
),
rate_pruned AS (
  DELETE FROM nudge_rate_starts AS r
   WHERE (r.queue, r.t) IN (
           SELECT o.queue, o.t FROM nudge_rate_starts AS o
             JOIN queue_written AS w ON w.name = o.queue
            WHERE w.rate_limit IS NOT NULL AND w.n IS NOT NULL AND o.t <= w.at_ms - w.rate_interval_ms
              FOR UPDATE OF o SKIP LOCKED)
)`;
}

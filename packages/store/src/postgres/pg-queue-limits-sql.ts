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
 * The `queue_written` CTE: writes what this claim changed of each locked queue. A queue with a
 * concurrency limit gets this claim's starts added to `starts_since_count`, or, when the claim
 * counted its running jobs, `counted_running` set to that count and `starts_since_count` to the
 * claim's starts (migration 0014). A rate-limited queue gets this claim's starts appended to its
 * log, and the starts that left the window at `limits`' `at` dropped, from the log as the UPDATE
 * finds it (a shared claim's neighbours may have appended to it since `limits` read it). A
 * claim's starts share one entry, its time rounded UP to a thousandth of the interval: a start
 * then counts a little longer than it should, never shorter, so the limit holds exactly while
 * the log stays at about 1,000 entries at most.
 */
export function pgLimitedQueueUpdate(): string {
  const atMs = '(extract(epoch FROM l.at) * 1000)';
  const grain = 'greatest(1, l.rate_interval_ms / 1000)';
  return `queue_written AS (
  UPDATE nudge_queues AS q
     SET counted_running = CASE WHEN l.recounted THEN l.running::int ELSE q.counted_running END,
         starts_since_count = CASE WHEN l.recounted THEN coalesce(c.n, 0)
                                   ELSE q.starts_since_count + coalesce(c.n, 0) END,
         rate_starts = CASE WHEN l.rate_limit IS NULL OR c.n IS NULL THEN q.rate_starts ELSE (
       SELECT coalesce(jsonb_agg(jsonb_build_array(m.t, m.n) ORDER BY m.t), '[]'::jsonb)
         FROM (SELECT t, sum(n) AS n FROM (
                 SELECT (e->>0)::float8 AS t, (e->>1)::int AS n FROM jsonb_array_elements(q.rate_starts) AS e
                  WHERE (e->>0)::float8 > ${atMs} - l.rate_interval_ms
                 UNION ALL SELECT ceil(${atMs} / ${grain}) * ${grain}, c.n
               ) AS s GROUP BY t) AS m) END
    FROM limits AS l
    LEFT JOIN (SELECT queue, count(*)::int AS n FROM claimed GROUP BY queue) AS c ON c.queue = l.name
   WHERE q.name = l.name
     AND (l.recounted OR (c.n IS NOT NULL AND (l.concurrency IS NOT NULL OR l.rate_limit IS NOT NULL)))
)`;
}

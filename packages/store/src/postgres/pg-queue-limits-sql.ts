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
 * The `limits` CTE: locks the rows of the queues the caller names (`lockedParam`, a text array)
 * and reads, after the lock, each one that is limited and not paused, with its running jobs, its
 * starts in the current rate window (and the oldest of them, epoch ms), `at` (the time the claim
 * counts by: the lock's) and its `room`: how many more of its jobs may start now, cluster-wide.
 * One call of `nudge_lock_limited_queues` (migration 0013), whose queries see what the previous
 * claim of these queues committed, though this statement's snapshot is older.
 */
export function pgLimitsCte(lockedParam: string): string {
  return `limits AS (
  SELECT s.*, greatest(0, least(coalesce(s.concurrency - s.running, 2147483647),
                                coalesce(s.rate_limit - s.started, 2147483647))) AS room
    FROM nudge_lock_limited_queues(${lockedParam}::text[], $1::timestamptz) AS s
)`;
}

/** SQL: the running jobs of the candidate row `alias` with its concurrency key, counted after the lock. */
export const runningWithKey = (alias: string): string =>
  `nudge_running_with_key(${alias}.queue, ${alias}.concurrency_key)`;

/**
 * The `rated` CTE: appends this claim's starts to each rate-limited queue's log and drops the
 * starts that left the window, from the log as `limits` read it after the lock, at its `at`. A
 * claim's starts share one entry, its time rounded UP to a thousandth of the interval: a start
 * then counts a little longer than it should, never shorter, so the limit holds exactly while
 * the log stays at about 1,000 entries at most.
 */
export function pgRateLogUpdate(): string {
  const atMs = '(extract(epoch FROM l.at) * 1000)';
  const grain = 'greatest(1, l.rate_interval_ms / 1000)';
  return `rated AS (
  UPDATE nudge_queues AS q
     SET rate_starts = (
       SELECT coalesce(jsonb_agg(jsonb_build_array(m.t, m.n) ORDER BY m.t), '[]'::jsonb)
         FROM (SELECT t, sum(n) AS n FROM (
                 SELECT (e->>0)::float8 AS t, (e->>1)::int AS n FROM jsonb_array_elements(l.rate_starts) AS e
                  WHERE (e->>0)::float8 > ${atMs} - l.rate_interval_ms
                 UNION ALL SELECT ceil(${atMs} / ${grain}) * ${grain}, c.n
               ) AS s GROUP BY t) AS m)
    FROM (SELECT queue, count(*)::int AS n FROM claimed GROUP BY queue) AS c
    JOIN limits AS l ON l.name = c.queue
   WHERE q.name = c.queue AND l.rate_limit IS NOT NULL
)`;
}

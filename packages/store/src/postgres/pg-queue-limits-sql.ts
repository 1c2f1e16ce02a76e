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

/** SQL: the starts of a queue's rate log (alias `q`) that are still inside its window, as `(t, n)`. */
const startsInWindow = (nowMs: string): string =>
  `SELECT (e->>0)::float8 AS t, (e->>1)::int AS n FROM jsonb_array_elements(q.rate_starts) AS e
    WHERE (e->>0)::float8 > ${nowMs} - q.rate_interval_ms`;

/**
 * The `limits` CTE: each locked queue (`lockedParam`, a text array) that is limited and not paused, read after the lock
 * was taken, with its running jobs, its starts in the current rate window (and the oldest of
 * them, epoch ms), and its `room`: how many more of its jobs may start now, cluster-wide.
 */
export function pgLimitsCte(nowMs: string, lockedParam: string): string {
  return `limits AS (
  SELECT s.*, greatest(0, least(coalesce(s.concurrency - s.running, 2147483647),
                                coalesce(s.rate_limit - s.started, 2147483647))) AS room
    FROM (
      SELECT q.name, q.concurrency, q.rate_limit, q.rate_interval_ms, q.key_concurrency,
             (SELECT count(*) FROM nudge_jobs AS r WHERE r.status = 'RUNNING' AND r.queue = q.name) AS running,
             (SELECT coalesce(sum(w.n), 0) FROM (${startsInWindow(nowMs)}) AS w) AS started,
             (SELECT min(w.t) FROM (${startsInWindow(nowMs)}) AS w) AS oldest_start
        FROM nudge_queues AS q
       WHERE q.name = ANY(${lockedParam}::text[]) AND NOT q.paused AND ${limitedQueue('q')}
    ) AS s
)`;
}

/**
 * The `rated` CTE: appends this claim's starts to each rate-limited queue's log and drops the
 * starts that left the window. A claim's starts share one entry, its time rounded UP to a
 * thousandth of the interval: a start then counts a little longer than it should, never
 * shorter, so the limit holds exactly while the log stays at about 1,000 entries at most.
 */
export function pgRateLogUpdate(nowMs: string, lockedParam: string): string {
  const grain = 'greatest(1, q.rate_interval_ms / 1000)';
  return `rated AS (
  UPDATE nudge_queues AS q
     SET rate_starts = (
       SELECT coalesce(jsonb_agg(jsonb_build_array(m.t, m.n) ORDER BY m.t), '[]'::jsonb)
         FROM (SELECT t, sum(n) AS n FROM (
                 ${startsInWindow(nowMs)}
                 UNION ALL SELECT ceil(${nowMs} / ${grain}) * ${grain}, c.n
               ) AS s GROUP BY t) AS m)
    FROM (SELECT queue, count(*)::int AS n FROM claimed GROUP BY queue) AS c
   WHERE q.name = c.queue AND q.name = ANY(${lockedParam}::text[]) AND q.rate_limit IS NOT NULL
)`;
}

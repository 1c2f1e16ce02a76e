-- Two costs of every claim of a limited queue.
--
-- The query that nudge_lock_limited_queues returns was planned afresh in each call: PL/pgSQL
-- caches a statement's plan per session, but the plan cache judged the generic plan of that query
-- costlier than the custom ones and kept planning custom plans, 0.6 to 1 ms of CPU in every claim
-- (200 calls in one transaction took 166 to 240 ms, against 31 ms with generic plans). The query
-- reads the locked queues' rows by name, their rate logs and their running jobs through indexes:
-- the generic plan is the custom plan without its constants. The function now keeps it.
--
-- A rate-limited queue's log of starts moves from a jsonb array in its nudge_queues row to rows of
-- their own. Each claim read the array twice and wrote it back whole, TOASTed once it held more
-- than a few hundred entries (a queue claimed about 1,000 times per window, as a fast drain does).
-- A row holds the starts of the claims whose time rounds up to the same thousandth of the interval
-- (t, epoch ms, database clock); the claim that logs starts deletes the rows that left the window,
-- skipping rows another claim holds.
CREATE TABLE nudge_rate_starts (
  queue text    NOT NULL,
  t     bigint  NOT NULL,
  n     integer NOT NULL CHECK (n >= 1),
  PRIMARY KEY (queue, t)
);

INSERT INTO nudge_rate_starts (queue, t, n)
SELECT q.name, ceil((e->>0)::float8)::bigint, sum((e->>1)::int)
  FROM nudge_queues AS q, jsonb_array_elements(q.rate_starts) AS e
 GROUP BY 1, 2;

DROP FUNCTION nudge_lock_limited_queues(text[], integer[], boolean[], integer, timestamptz);

-- Locks the rows of the queues `names`, each shared when `share` allows it and a slot is free,
-- then answers each one that is limited and not paused with its limits, its running jobs, its
-- starts in the current rate window (and the oldest, epoch ms), `at` (the time the
-- claim counts by: the lock's, or `now_override` in tests), `shared`, `free` (how many more of its
-- jobs may start now, at least) and `room` (how many this claim may start: `free`, or 0 for a
-- shared claim that found less than `slots * want`), and `recounted` (its running jobs were
-- counted: `running` is exact; otherwise it is the bound above).
CREATE FUNCTION nudge_lock_limited_queues(names text[], wants integer[], share boolean[], slots integer,
                                          now_override timestamptz)
RETURNS TABLE (name text, concurrency integer, rate_limit integer, rate_interval_ms integer,
               key_concurrency integer, running bigint, started bigint,
               oldest_start double precision, at timestamptz,
               shared boolean, free bigint, room bigint, recounted boolean)
LANGUAGE plpgsql VOLATILE SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  locked_at timestamptz;
  at_ms double precision;
  queue_name text;
  queue_want integer;
  try_share boolean;
  got boolean;
  locked_names text[] := '{}';
  locked_wants integer[] := '{}';
  locked_shared boolean[] := '{}';
BEGIN
  FOR queue_name, queue_want, try_share IN
    SELECT u.n, u.w, u.s FROM unnest(names, wants, share) AS u(n, w, s) ORDER BY u.n
  LOOP
    got := false;
    IF try_share THEN
      FOR slot IN 0 .. slots - 1 LOOP
        IF pg_try_advisory_xact_lock(hashtext('nudge_limited_queue:' || queue_name), slot) THEN
          got := true;
          EXIT;
        END IF;
      END LOOP;
    END IF;
    IF got THEN
      PERFORM 1 FROM nudge_queues AS q WHERE q.name = queue_name FOR KEY SHARE;
    ELSE
      PERFORM 1 FROM nudge_queues AS q WHERE q.name = queue_name FOR UPDATE;
    END IF;
    locked_names := locked_names || queue_name;
    locked_wants := locked_wants || queue_want;
    locked_shared := locked_shared || got;
  END LOOP;
  locked_at := coalesce(now_override, clock_timestamp());
  at_ms := extract(epoch FROM locked_at) * 1000;
  RETURN QUERY
    SELECT s.name, s.concurrency, s.rate_limit, s.rate_interval_ms, s.key_concurrency, s.running,
           s.started, s.oldest_start, locked_at, s.shared, s.free,
           CASE WHEN s.shared AND s.free < slots::bigint * s.want THEN 0 ELSE s.free END, s.recount
      FROM (
        SELECT c.*, greatest(0, least(coalesce(c.concurrency - c.running, 2147483647),
                                      coalesce(c.rate_limit - c.started, 2147483647))) AS free
          FROM (
            SELECT q.name, q.concurrency, q.rate_limit, q.rate_interval_ms, q.key_concurrency, b.recount,
                   CASE WHEN q.concurrency IS NULL THEN 0
                        WHEN b.recount THEN (SELECT count(*) FROM nudge_jobs AS r
                                              WHERE r.status = 'RUNNING' AND r.queue = q.name)
                        -- A shared claim without a bound: no room it could prove.
                        WHEN q.counted_running IS NULL THEN q.concurrency
                        ELSE q.counted_running + q.starts_since_count END AS running,
                   (SELECT coalesce(sum(r.n), 0)::bigint FROM nudge_rate_starts AS r
                     WHERE r.queue = q.name AND r.t > at_ms - q.rate_interval_ms) AS started,
                   (SELECT min(r.t)::float8 FROM nudge_rate_starts AS r
                     WHERE r.queue = q.name AND r.t > at_ms - q.rate_interval_ms) AS oldest_start,
                   m.shared, m.want
              FROM nudge_queues AS q
              JOIN unnest(locked_names, locked_wants, locked_shared) AS m(name, want, shared) ON m.name = q.name
             CROSS JOIN LATERAL (
               SELECT q.concurrency IS NOT NULL AND NOT m.shared
                      AND (q.counted_running IS NULL
                           OR q.concurrency - q.counted_running - q.starts_since_count < m.want) AS recount
             ) AS b
             WHERE NOT q.paused
               AND (q.concurrency IS NOT NULL OR q.rate_limit IS NOT NULL OR q.key_concurrency IS NOT NULL)
          ) AS c
      ) AS s;
END
$$;

ALTER TABLE nudge_queues DROP COLUMN rate_starts;

-- Two costs of every claim of a limited queue.
--
-- The query that nudge_lock_limited_queues returns was planned afresh in each call: PL/pgSQL
-- caches a statement's plan per session, but the plan cache judged the generic plan of that query
-- costlier than the custom ones and kept planning custom plans, 0.6 to 1 ms of CPU in every claim
-- (200 calls in one transaction took 166 to 240 ms, against 31 ms with generic plans). The query
-- reads the locked queues' rows by name, their rate logs and their running jobs through indexes:
-- the generic plan is the custom plan without its constants. The function now keeps it.
--
-- Claims that share a queue (migration 0014) no longer write to its nudge_queues row, where each
-- waited for the previous claim's commit (its WAL flush included) before it could add its starts:
-- a shared claim adds them to the row of its advisory slot in nudge_queue_slots, which no other
-- claim holds meanwhile. A claim that does not share runs alone (its FOR UPDATE waits for the
-- shared claims to commit, and they for it) and writes the queue's row as before; one that counts
-- the running jobs sets the slots' starts back to 0. The upper bound on the running jobs is
-- counted_running + starts_since_count + the slots' starts.
CREATE TABLE nudge_queue_slots (
  queue  text    NOT NULL,
  slot   integer NOT NULL,
  starts bigint  NOT NULL,
  PRIMARY KEY (queue, slot)
);

-- A rate-limited queue's log of starts moves from a jsonb array in its nudge_queues row to rows of
-- their own. Each claim read the array twice and wrote it back whole, TOASTed once it held more
-- than a few hundred entries (a queue claimed about 1,000 times per window, as a fast drain does).
-- A row holds the starts of the claims whose time rounds up to the same hundredth of the interval
-- (t, epoch ms, database clock; a start counts up to 1 % of the interval longer, never shorter, and
-- a claim sums at most about 100 rows per slot: 0.35 µs a row) under one slot (-1: a claim that does not share), so no two
-- claims in flight write the same row; the claim that logs starts deletes the rows that left the
-- window, skipping rows another claim holds.
CREATE TABLE nudge_rate_starts (
  queue text    NOT NULL,
  t     bigint  NOT NULL,
  slot  integer NOT NULL,
  n     integer NOT NULL CHECK (n >= 1),
  PRIMARY KEY (queue, t, slot)
);

INSERT INTO nudge_rate_starts (queue, t, slot, n)
SELECT q.name, ceil((e->>0)::float8)::bigint, -1, sum((e->>1)::int)
  FROM nudge_queues AS q, jsonb_array_elements(q.rate_starts) AS e
 GROUP BY 1, 2;

DROP FUNCTION nudge_lock_limited_queues(text[], integer[], boolean[], integer, timestamptz);

-- Locks the rows of the queues `names`, each shared when `share` allows it and a slot is free,
-- then answers each one that is limited and not paused with its limits, its running jobs, its
-- starts in the current rate window (and the oldest, epoch ms), `at` (the time the
-- claim counts by: the lock's, or `now_override` in tests), `shared`, `free` (how many more of its
-- jobs may start now, at least) and `room` (how many this claim may start: `free`, or 0 for a
-- shared claim that found less than `slots * want`), `recounted` (its running jobs were counted:
-- `running` is exact; otherwise it is the bound above) and `slot` (the share slot taken, NULL
-- for a claim that does not share).
CREATE FUNCTION nudge_lock_limited_queues(names text[], wants integer[], share boolean[], slots integer,
                                          now_override timestamptz)
RETURNS TABLE (name text, concurrency integer, rate_limit integer, rate_interval_ms integer,
               key_concurrency integer, running bigint, started bigint,
               oldest_start double precision, at timestamptz,
               shared boolean, free bigint, room bigint, recounted boolean, slot integer)
LANGUAGE plpgsql VOLATILE SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  locked_at timestamptz;
  at_ms double precision;
  queue_name text;
  queue_want integer;
  try_share boolean;
  got boolean;
  got_slot integer;
  locked_names text[] := '{}';
  locked_wants integer[] := '{}';
  locked_shared boolean[] := '{}';
  locked_slots integer[] := '{}';
BEGIN
  FOR queue_name, queue_want, try_share IN
    SELECT u.n, u.w, u.s FROM unnest(names, wants, share) AS u(n, w, s) ORDER BY u.n
  LOOP
    got := false;
    got_slot := NULL;
    IF try_share THEN
      FOR slot IN 0 .. slots - 1 LOOP
        IF pg_try_advisory_xact_lock(hashtext('nudge_limited_queue:' || queue_name), slot) THEN
          got := true;
          got_slot := slot;
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
    locked_slots := locked_slots || got_slot;
  END LOOP;
  locked_at := coalesce(now_override, clock_timestamp());
  at_ms := extract(epoch FROM locked_at) * 1000;
  RETURN QUERY
    SELECT s.name, s.concurrency, s.rate_limit, s.rate_interval_ms, s.key_concurrency, s.running,
           s.started, s.oldest_start, locked_at, s.shared, s.free,
           CASE WHEN s.shared AND s.free < slots::bigint * s.want THEN 0 ELSE s.free END, s.recount, s.slot
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
                        ELSE u.bound END AS running,
                   (SELECT coalesce(sum(r.n), 0)::bigint FROM nudge_rate_starts AS r
                     WHERE r.queue = q.name AND r.t > at_ms - q.rate_interval_ms) AS started,
                   (SELECT min(r.t)::float8 FROM nudge_rate_starts AS r
                     WHERE r.queue = q.name AND r.t > at_ms - q.rate_interval_ms) AS oldest_start,
                   m.shared, m.want, m.slot
              FROM nudge_queues AS q
              JOIN unnest(locked_names, locked_wants, locked_shared, locked_slots) AS m(name, want, shared, slot)
                ON m.name = q.name
             CROSS JOIN LATERAL (
               SELECT q.counted_running + q.starts_since_count
                      + (SELECT coalesce(sum(k.starts), 0)::bigint FROM nudge_queue_slots AS k WHERE k.queue = q.name)
                      AS bound
             ) AS u
             CROSS JOIN LATERAL (
               SELECT q.concurrency IS NOT NULL AND NOT m.shared
                      AND (q.counted_running IS NULL OR q.concurrency - u.bound < m.want) AS recount
             ) AS b
             WHERE NOT q.paused
               AND (q.concurrency IS NOT NULL OR q.rate_limit IS NOT NULL OR q.key_concurrency IS NOT NULL)
          ) AS c
      ) AS s;
END
$$;

ALTER TABLE nudge_queues DROP COLUMN rate_starts;

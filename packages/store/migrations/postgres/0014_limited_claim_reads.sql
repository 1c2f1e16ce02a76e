-- Claims of a limited queue with room to spare run side by side instead of one at a time.
--
-- A claim that takes at most `want` rows of a queue may share the queue with at most `slots - 1`
-- other such claims (one transaction-scoped advisory lock per slot, tried without waiting) when
-- the queue's room, read after the lock, is at least `slots * want`: all of them together then
-- take at most the room, whatever each one cannot see of the others. A shared claim locks the
-- queue's row FOR KEY SHARE, which other shared claims do not wait on; any other claim locks it
-- FOR UPDATE, so it waits for the shared ones to commit and the shared ones wait for it. A shared
-- claim that finds less room than that takes nothing from the queue (room 0): it cannot wait for
-- the other shared claims without risking a deadlock with them, and the caller claims again
-- without sharing. Two claims never wait on each other in a cycle: the rows are locked in name
-- order, and advisory locks are only tried.
--
-- A queue's running jobs are counted only when its concurrency limit might bind: each claim adds
-- its starts to `starts_since_count`, so `counted_running + starts_since_count` is at least the
-- running jobs (jobs of a limited queue start only through these claims, and a finished job only
-- lowers the count). A claim counts again (and resets both) when that bound leaves less room than
-- it may take, or when it is unknown (NULL: a new limit, set while jobs of the queue may have
-- started unlimited). Only a claim that does not share counts: a shared claim's neighbours may
-- be adding their starts, and one that cannot prove its room from the bound takes nothing.
ALTER TABLE nudge_queues
  ADD COLUMN counted_running integer,
  ADD COLUMN starts_since_count bigint NOT NULL DEFAULT 0;

DROP FUNCTION nudge_lock_limited_queues(text[], timestamptz);

-- Locks the rows of the queues `names`, each shared when `share` allows it and a slot is free,
-- then answers each one that is limited and not paused with its limits, its running jobs, its
-- starts in the current rate window (and the oldest, epoch ms), its rate log, `at` (the time the
-- claim counts by: the lock's, or `now_override` in tests), `shared`, `free` (how many more of its
-- jobs may start now, at least) and `room` (how many this claim may start: `free`, or 0 for a
-- shared claim that found less than `slots * want`), and `recounted` (its running jobs were
-- counted: `running` is exact; otherwise it is the bound above).
CREATE FUNCTION nudge_lock_limited_queues(names text[], wants integer[], share boolean[], slots integer,
                                          now_override timestamptz)
RETURNS TABLE (name text, concurrency integer, rate_limit integer, rate_interval_ms integer,
               key_concurrency integer, running bigint, started bigint,
               oldest_start double precision, rate_starts jsonb, at timestamptz,
               shared boolean, free bigint, room bigint, recounted boolean)
LANGUAGE plpgsql VOLATILE AS $$
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
           s.started, s.oldest_start, s.rate_starts, locked_at, s.shared, s.free,
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
                   (SELECT coalesce(sum((e->>1)::bigint), 0)::bigint FROM jsonb_array_elements(q.rate_starts) AS e
                     WHERE (e->>0)::float8 > at_ms - q.rate_interval_ms) AS started,
                   (SELECT min((e->>0)::float8) FROM jsonb_array_elements(q.rate_starts) AS e
                     WHERE (e->>0)::float8 > at_ms - q.rate_interval_ms) AS oldest_start,
                   q.rate_starts, m.shared, m.want
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

-- Whether a claim may take a due row with concurrency key `key` of queue `queue_name`: no other
-- claim in flight is taking one (a transaction-scoped advisory lock per key, tried without
-- waiting: shared claims of the queue run side by side), and the key's running jobs, read with a
-- fresh snapshot, are fewer than `key_limit`.
CREATE FUNCTION nudge_key_has_room(queue_name text, key text, key_limit integer) RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF NOT pg_try_advisory_xact_lock(hashtext('nudge_limited_key:' || queue_name), hashtext(key)) THEN
    RETURN false;
  END IF;
  RETURN (SELECT count(*) FROM nudge_jobs
           WHERE status = 'RUNNING' AND queue = queue_name AND concurrency_key = key) < key_limit;
END
$$;

-- The due rows per kind: a claim's candidate for a group of kinds first asks whether one of them
-- has a due row, instead of walking every due row of other kinds to find none (a group whose
-- kinds are idle, beside one with a backlog, did so in each claim).
CREATE INDEX nudge_jobs_kind_claimable ON nudge_jobs (kind, run_at) WHERE status = 'PENDING';

-- Claims that share a limited queue never take more than its room together, whatever each wants.
--
-- A shared claim (migration 0014) cannot see what the other shared claims in flight take: their
-- starts are not committed. It shared while the room it saw was at least SHARE_SLOTS times what it
-- wanted, which bounds the others only when every sharer wants the same: with a concurrency of 40,
-- four claims of 10 saw room 40 and took 10 each; one committed; claims of 2 and 7 then saw room 30
-- and 28 and took theirs, 49 running jobs. A window of starts overshot the same way.
--
-- The bound now holds whatever each wants. A queue's share size q is the least of its concurrency
-- and rate limits over SHARE_SLOTS squared (at least 1; none without either limit). A claim may
-- share only when it takes at most q, and only while the room it sees is at least
-- (SHARE_SLOTS - 1) * q plus what it takes; otherwise its room is 0 (the caller claims again
-- alone). Why no overshoot, for the running jobs and for every window of starts alike:
--  * What a claim sees, read after its lock with a fresh snapshot, is everything committed: every
--    start of a claim that committed (the slots' and the queue's counts, the rate rows, dated by
--    their lock's time rounded up) and every job that finished. What it cannot see is the starts
--    of the claims still in flight.
--  * A claim that does not share holds the row FOR UPDATE: no shared claim is in flight while it
--    runs (each holds FOR KEY SHARE until it commits), so it sees all starts and takes at most
--    the room.
--  * A shared claim holds one of the SHARE_SLOTS advisory slots until it commits, so at most
--    SHARE_SLOTS - 1 others are in flight beside it, and each of them takes at most q: q is read
--    alike by all claims in flight at once, since the limits change only under the row's FOR
--    UPDATE lock (setQueueLimits takes it), which waits for the shared claims to commit.
--    So the starts it cannot see are at most (SHARE_SLOTS - 1) * q, and what it takes fits in
--    the room it sees less that: the running jobs never exceed the concurrency.
--  * For the rate, take any window and, of the claims with starts in it, the one whose lock came
--    last: each other start in the window is dated by an earlier lock, so it was either committed
--    when that claim read (and counted: the window it read ends at its lock and holds the whole
--    window's part before it) or in flight (at most (SHARE_SLOTS - 1) * q); that claim's own
--    starts fit in what remained, so the window holds at most the limit.
-- q is small beside the limit (a sixteenth of it), so claims of a few jobs still share while most
-- of the room is taken; a claim that wants more claims alone.

DROP FUNCTION nudge_lock_limited_queues(text[], integer[], boolean[], integer, timestamptz);

-- Locks the rows of the queues `names`, each shared when `share` allows it and a slot is free,
-- then answers each one that is limited and not paused with its limits, its running jobs, its
-- starts in the current rate window (and the oldest, epoch ms), `at` (the time the
-- claim counts by: the lock's, or `now_override` in tests), `shared`, `free` (how many more of its
-- jobs may start now, at least) and `room` (how many this claim may start: `free`, or 0 for a
-- shared claim that wants more than `share_size` or found less than `(slots - 1) * share_size + want`;
-- see above), `share_size` (q above), `recounted` (its running jobs were counted:
-- `running` is exact; otherwise it is the bound above) and `slot` (the share slot taken, NULL
-- for a claim that does not share).
CREATE FUNCTION nudge_lock_limited_queues(names text[], wants integer[], share boolean[], slots integer,
                                          now_override timestamptz)
RETURNS TABLE (name text, concurrency integer, rate_limit integer, rate_interval_ms integer,
               key_concurrency integer, running bigint, started bigint,
               oldest_start double precision, at timestamptz,
               shared boolean, free bigint, room bigint, share_size integer, recounted boolean, slot integer)
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
           CASE WHEN NOT s.shared OR s.share_size IS NULL THEN s.free
                WHEN s.want <= s.share_size AND s.free >= (slots - 1)::bigint * s.share_size + s.want THEN s.free
                ELSE 0 END,
           s.share_size, s.recount, s.slot
      FROM (
        SELECT c.*, greatest(0, least(coalesce(c.concurrency - c.running, 2147483647),
                                      coalesce(c.rate_limit - c.started, 2147483647))) AS free,
               -- least() skips a NULL limit; greatest() would turn none into 1.
               CASE WHEN c.concurrency IS NOT NULL OR c.rate_limit IS NOT NULL
                    THEN greatest(1, least(c.concurrency, c.rate_limit) / (slots * slots)) END AS share_size
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

-- The due rows of a queue with a concurrency key, per key in claim order, and those without one,
-- per queue in claim order: a claim of a queue with a key limit whose first rows in claim order
-- belong to keys at their limit finds the rows it may take this way instead (the rows without a
-- key, and the first rows of each key with room, one probe per key), so a busy key's held-back
-- rows cost it nothing however many there are (see pg-keyed-candidate.ts). Two partial indexes,
-- not one over both: the planner reads `concurrency_key IS NULL` as a condition, not as a
-- constant, and would not take the rows in claim order from (queue, concurrency_key, …).
CREATE INDEX nudge_jobs_key_claimable ON nudge_jobs (queue, concurrency_key, priority, run_at, id)
  WHERE status = 'PENDING' AND concurrency_key IS NOT NULL;
CREATE INDEX nudge_jobs_keyless_claimable ON nudge_jobs (queue, priority, run_at, id)
  WHERE status = 'PENDING' AND concurrency_key IS NULL;

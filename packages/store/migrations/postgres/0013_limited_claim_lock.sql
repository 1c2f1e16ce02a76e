-- A claim of limited queues takes their locks inside the claim statement itself, in one round
-- trip: the queues' rows are locked for as long as the statement runs, not across a transaction
-- the client drives. The statement's own snapshot is taken before it waits for the lock, so what
-- it must count after the lock is read here: each query of a VOLATILE plpgsql function takes a
-- fresh snapshot, which sees every job the previous claim of the queue started and every start
-- it logged.

-- Locks the rows of the queues `names` (in name order: two claims never wait on each other in a
-- cycle), then answers each one that is limited and not paused with its limits, its running
-- jobs, its starts in the current rate window (and the oldest, epoch ms), its rate log, and `at`:
-- the time the claim counts by (the lock's, or `now_override` in tests).
CREATE FUNCTION nudge_lock_limited_queues(names text[], now_override timestamptz)
RETURNS TABLE (name text, concurrency integer, rate_limit integer, rate_interval_ms integer,
               key_concurrency integer, running bigint, started bigint,
               oldest_start double precision, rate_starts jsonb, at timestamptz)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  locked_at timestamptz;
  at_ms double precision;
BEGIN
  PERFORM 1 FROM nudge_queues AS q WHERE q.name = ANY(names) ORDER BY q.name FOR NO KEY UPDATE;
  locked_at := coalesce(now_override, clock_timestamp());
  at_ms := extract(epoch FROM locked_at) * 1000;
  RETURN QUERY
    SELECT q.name, q.concurrency, q.rate_limit, q.rate_interval_ms, q.key_concurrency,
           (SELECT count(*) FROM nudge_jobs AS r WHERE r.status = 'RUNNING' AND r.queue = q.name),
           (SELECT coalesce(sum((e->>1)::bigint), 0)::bigint FROM jsonb_array_elements(q.rate_starts) AS e
             WHERE (e->>0)::float8 > at_ms - q.rate_interval_ms),
           (SELECT min((e->>0)::float8) FROM jsonb_array_elements(q.rate_starts) AS e
             WHERE (e->>0)::float8 > at_ms - q.rate_interval_ms),
           q.rate_starts, locked_at
      FROM nudge_queues AS q
     WHERE q.name = ANY(names) AND NOT q.paused
       AND (q.concurrency IS NOT NULL OR q.rate_limit IS NOT NULL OR q.key_concurrency IS NOT NULL);
END
$$;

-- The running jobs of `queue_name` with concurrency key `key`, read with a fresh snapshot (called
-- by a claim after its queues' locks were taken).
CREATE FUNCTION nudge_running_with_key(queue_name text, key text) RETURNS bigint
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  RETURN (SELECT count(*) FROM nudge_jobs
           WHERE status = 'RUNNING' AND queue = queue_name AND concurrency_key = key);
END
$$;

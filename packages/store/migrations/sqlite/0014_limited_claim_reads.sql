-- The due rows that carry a concurrency key, per queue in claim order: a claim asks whether a
-- queue's key limit held one of them back, and this answers without walking the queue's rows
-- that have no key.
CREATE INDEX nudge_jobs_keyed_claimable ON nudge_jobs (queue, priority, run_at, id)
  WHERE status = 'PENDING' AND concurrency_key IS NOT NULL;

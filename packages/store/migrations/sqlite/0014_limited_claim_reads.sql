-- The due rows that carry a concurrency key, per queue in claim order: a claim asks whether a
-- queue's key limit held one of them back, and this answers without walking the queue's rows
-- that have no key.
CREATE INDEX nudge_jobs_keyed_claimable ON nudge_jobs (queue, priority, run_at, id)
  WHERE status = 'PENDING' AND concurrency_key IS NOT NULL;

-- The due rows per kind: a claim's candidate for a group of kinds first asks whether one of them
-- has a due row, instead of walking every due row of other kinds to find none (a group whose
-- kinds are idle, beside one with a backlog, did so in each claim).
CREATE INDEX nudge_jobs_kind_claimable ON nudge_jobs (kind, run_at) WHERE status = 'PENDING';

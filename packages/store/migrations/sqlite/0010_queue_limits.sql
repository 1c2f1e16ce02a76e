-- Cluster-wide queue limits, set at run time (PATCH /queues/:name) and enforced inside the claim:
-- the most jobs of the queue RUNNING at once (concurrency), the most started in any window of
-- rate_interval_ms (rate_limit), and the most RUNNING at once per concurrency key
-- (key_concurrency). NULL is no limit.
ALTER TABLE nudge_queues ADD COLUMN concurrency INTEGER CHECK (concurrency >= 1);
ALTER TABLE nudge_queues ADD COLUMN rate_limit INTEGER CHECK (rate_limit >= 1);
ALTER TABLE nudge_queues ADD COLUMN rate_interval_ms INTEGER CHECK (rate_interval_ms >= 1);
ALTER TABLE nudge_queues ADD COLUMN key_concurrency INTEGER CHECK (key_concurrency >= 1);
-- The starts within the current rate window, for the sliding-window count: [[epoch ms, count], …],
-- each claim's starts under one entry, its time rounded up to 1/1000 of the interval.
ALTER TABLE nudge_queues ADD COLUMN rate_starts TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(rate_starts));

-- A customer, repository or account: in a queue with key_concurrency k, at most k jobs with the
-- same key run at once across the cluster.
ALTER TABLE nudge_jobs ADD COLUMN concurrency_key TEXT CHECK (concurrency_key IS NULL OR length(concurrency_key) > 0);

-- The running jobs of a queue, and of a key within it, counted by each claim of a limited queue.
CREATE INDEX nudge_jobs_running ON nudge_jobs (queue, concurrency_key) WHERE status = 'RUNNING';

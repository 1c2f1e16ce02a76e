-- (Claims that share a queue, the first part of this migration on PostgreSQL, do not exist on
-- SQLite: its claims run one at a time.)

-- The due rows of a queue with a concurrency key, per key in claim order, and those without one,
-- per queue in claim order: a claim of a queue with a key limit whose first rows in claim order
-- belong to keys at their limit finds the rows it may take this way instead (the rows without a
-- key, and the first rows of each key with room, one probe per key), so a busy key's held-back
-- rows cost it nothing however many there are (see sqlite-claim-windows.ts).
CREATE INDEX nudge_jobs_key_claimable ON nudge_jobs (queue, concurrency_key, priority, run_at, id)
  WHERE status = 'PENDING' AND concurrency_key IS NOT NULL;
CREATE INDEX nudge_jobs_keyless_claimable ON nudge_jobs (queue, priority, run_at, id)
  WHERE status = 'PENDING' AND concurrency_key IS NULL;

-- The first of them answers what nudge_jobs_keyed_claimable (migration 0014) did, whether a queue
-- has a due row with a key: one index fewer to write per keyed job.
DROP INDEX nudge_jobs_keyed_claimable;

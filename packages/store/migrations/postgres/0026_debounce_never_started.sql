-- The debounced job that waits for its key is the one that never started: `started_at IS NULL`
-- (a claim sets it; only a retry clears it, back to PENDING). 0024 told it by `NOT has_steps`, to
-- leave out a job asleep in its first attempt (SCHEDULED with attempts = 0, a sleep being
-- uncharged); but a signal sent to a debounced job before it starts sets has_steps too (its
-- claim must ship the signal), and such a job then left its key's debounce: the next enqueue
-- under the key added a second job beside it instead of replacing it. A job asleep has started.
DROP INDEX nudge_jobs_debounce;
CREATE UNIQUE INDEX nudge_jobs_debounce ON nudge_jobs (kind, debounce_key)
  WHERE debounce_key IS NOT NULL AND status = 'SCHEDULED' AND attempts = 0 AND started_at IS NULL;

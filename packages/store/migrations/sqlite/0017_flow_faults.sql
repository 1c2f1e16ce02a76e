-- Faults of flow control.
--
-- 1. A debounced job that failed once waits SCHEDULED for its retry: the unique index over
--    SCHEDULED rows refused that write whenever a new job of the same key waited already. The
--    index (and the enqueue's replace) now covers only a debounced job that never started
--    (attempts = 0): a retry, a requeue by the sweep or a release never meets it.
DROP INDEX nudge_jobs_debounce;
CREATE UNIQUE INDEX nudge_jobs_debounce ON nudge_jobs (kind, debounce_key)
  WHERE debounce_key IS NOT NULL AND status = 'SCHEDULED' AND attempts = 0;


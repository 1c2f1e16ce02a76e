-- Dedupe windows. A throttled job (`throttle: { key, windowMs }`) records its key on the job and
-- opens a window per (kind, key) in nudge_throttle_windows: while the window is open, enqueueing
-- the same kind and key answers the window's job and writes no job. The window row is claimed with
-- INSERT … ON CONFLICT (kind, key) DO UPDATE … WHERE closes_at <= now, inside the write lock.
ALTER TABLE nudge_jobs ADD COLUMN throttle_key TEXT;
-- A debounced job (`debounce: { key, delayMs }`) waits SCHEDULED; at most one per kind and key
-- waits at a time, so concurrent producers replace one job instead of adding more.
ALTER TABLE nudge_jobs ADD COLUMN debounce_key TEXT;
CREATE UNIQUE INDEX nudge_jobs_debounce ON nudge_jobs (kind, debounce_key)
  WHERE debounce_key IS NOT NULL AND status = 'SCHEDULED';

CREATE TABLE nudge_throttle_windows (
  kind      TEXT NOT NULL,
  key       TEXT NOT NULL,
  -- NULL only inside the transaction that opens the window, before its job is inserted.
  job_id    INTEGER,
  opened_at TEXT NOT NULL,
  closes_at TEXT NOT NULL,
  PRIMARY KEY (kind, key)
);
CREATE INDEX nudge_throttle_windows_job ON nudge_throttle_windows (job_id);

-- A window lasts while its job is kept: deleting the job (retention, or by hand) deletes its
-- window, as it frees an idempotency key.
CREATE TRIGGER nudge_jobs_close_windows AFTER DELETE ON nudge_jobs
BEGIN
  DELETE FROM nudge_throttle_windows WHERE job_id = OLD.id;
END;

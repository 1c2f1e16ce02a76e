-- Dedupe windows. A throttled job (`throttle: { key, windowMs }`) records its key on the job and
-- opens a window per (kind, key) in nudge_throttle_windows: while the window is open, enqueueing
-- the same kind and key answers the window's job and writes no job. The window row is claimed with
-- INSERT … ON CONFLICT (kind, key) DO UPDATE … WHERE closes_at <= now(), so concurrent producers
-- queue on its row lock and exactly one opens each window.
ALTER TABLE nudge_jobs ADD COLUMN throttle_key text;
-- A debounced job (`debounce: { key, delayMs }`) waits SCHEDULED; at most one per kind and key
-- waits at a time, so concurrent producers replace one job instead of adding more.
ALTER TABLE nudge_jobs ADD COLUMN debounce_key text;
CREATE UNIQUE INDEX nudge_jobs_debounce ON nudge_jobs (kind, debounce_key)
  WHERE debounce_key IS NOT NULL AND status = 'SCHEDULED';

CREATE TABLE nudge_throttle_windows (
  kind      text        NOT NULL,
  key       text        NOT NULL,
  -- NULL only inside the transaction that opens the window, before its job is inserted.
  job_id    bigint,
  opened_at timestamptz NOT NULL DEFAULT now(),
  closes_at timestamptz NOT NULL,
  PRIMARY KEY (kind, key)
);
CREATE INDEX nudge_throttle_windows_job ON nudge_throttle_windows (job_id);

-- A window lasts while its job is kept: deleting the job (retention, or by hand) deletes its
-- window, as it frees an idempotency key. One statement per DELETE, joined on the index above.
CREATE FUNCTION nudge_jobs_close_windows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM nudge_throttle_windows w USING deleted d WHERE w.job_id = d.id;
  RETURN NULL;
END
$$;
CREATE TRIGGER nudge_jobs_close_windows AFTER DELETE ON nudge_jobs
  REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION nudge_jobs_close_windows();

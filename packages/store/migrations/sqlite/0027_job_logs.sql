-- Job logs: the lines a handler writes with ctx.log.debug / info / warn / error.
--
-- A job's lines are rows of nudge_job_logs, numbered by seq from 1 within the job (every attempt
-- of the job shares the numbering, and the cap). nudge_job_log_counts holds one row per job that
-- logged: the lines and bytes stored (a line's bytes are its message and its fields' JSON, in
-- UTF-8) and the lines dropped over the job's caps. SQLite runs one writer at a time, so an
-- append reads the counts and writes its lines in one transaction without a race; it writes no
-- line unless the job's version is still the attempt's (a lost attempt's late lines are refused).
CREATE TABLE nudge_job_logs (
  job_id  INTEGER NOT NULL,
  seq     INTEGER NOT NULL CHECK (seq >= 1),
  attempt INTEGER NOT NULL,
  level   TEXT    NOT NULL CHECK (level IN ('debug', 'info', 'warn', 'error')),
  message TEXT    NOT NULL,
  fields  TEXT    CHECK (fields IS NULL OR (json_valid(fields) AND json_type(fields) = 'object')),
  at      TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  PRIMARY KEY (job_id, seq)
) STRICT, WITHOUT ROWID;

CREATE TABLE nudge_job_log_counts (
  job_id  INTEGER PRIMARY KEY,
  lines   INTEGER NOT NULL DEFAULT 0 CHECK (lines >= 0),
  bytes   INTEGER NOT NULL DEFAULT 0 CHECK (bytes >= 0),
  dropped INTEGER NOT NULL DEFAULT 0 CHECK (dropped >= 0)
) STRICT;

-- Retention, prune, bulk deletes and plain SQL deletes take a job's lines and counts with it.
CREATE TRIGGER nudge_jobs_logs_deleted
  AFTER DELETE ON nudge_jobs
  FOR EACH ROW
BEGIN
  DELETE FROM nudge_job_logs WHERE job_id = OLD.id;
  DELETE FROM nudge_job_log_counts WHERE job_id = OLD.id;
END;

-- Job logs: the lines a handler writes with ctx.log.debug / info / warn / error.
--
-- A job's lines are rows of nudge_job_logs, numbered by seq from 1 within the job (every attempt
-- of the job shares the numbering, and the cap). nudge_job_log_counts holds one row per job that
-- logged: the lines and bytes stored (a line's bytes are its message and its fields' JSON, in
-- UTF-8) and the lines dropped over the job's caps. An append locks that row first (an upsert),
-- so two appends for one job never both fill the last places, and it writes no line unless the
-- job's version is still the attempt's (a lost attempt's late lines are refused). The jobs table
-- is not written: an outcome never waits on a log write's lock.
CREATE TABLE nudge_job_logs (
  job_id  bigint      NOT NULL,
  seq     integer     NOT NULL CHECK (seq >= 1),
  attempt integer     NOT NULL,
  level   text        NOT NULL CHECK (level IN ('debug', 'info', 'warn', 'error')),
  message text        NOT NULL,
  fields  jsonb       CHECK (fields IS NULL OR jsonb_typeof(fields) = 'object'),
  at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (job_id, seq)
);

CREATE TABLE nudge_job_log_counts (
  job_id  bigint  PRIMARY KEY,
  lines   integer NOT NULL DEFAULT 0 CHECK (lines >= 0),
  bytes   bigint  NOT NULL DEFAULT 0 CHECK (bytes >= 0),
  dropped bigint  NOT NULL DEFAULT 0 CHECK (dropped >= 0)
);

-- Retention, prune, bulk deletes and plain SQL deletes take a job's lines and counts with it:
-- once per statement, joined with the deleted rows (a transition table), so a retention pass
-- over many jobs pays two joins rather than a trigger call per row.
CREATE FUNCTION nudge_jobs_logs_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM nudge_job_logs AS l USING deleted_jobs AS d WHERE l.job_id = d.id;
  DELETE FROM nudge_job_log_counts AS c USING deleted_jobs AS d WHERE c.job_id = d.id;
  RETURN NULL;
END
$$;
CREATE TRIGGER nudge_jobs_logs_deleted
  AFTER DELETE ON nudge_jobs
  REFERENCING OLD TABLE AS deleted_jobs
  FOR EACH STATEMENT EXECUTE FUNCTION nudge_jobs_logs_deleted();

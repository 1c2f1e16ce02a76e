-- Durable steps: ctx.step, ctx.sleep / ctx.sleepUntil and ctx.waitForSignal.
--
-- A job's steps are rows of nudge_job_steps, one per name: a finished step's result, a failed
-- step's error, a sleep's wake-up time, a signal wait's deadline. Signals sent to a job are rows
-- of nudge_job_signals; the first of a name is the one a wait returns. has_steps is set on a job
-- once it has either: a claim reads both for such a job only (a CASE on the column), so a job
-- without steps costs no claim anything new. wait_signal names the signal a WAITING job waits
-- for; run_at is then its deadline ('9999-12-31T23:59:59.999Z' without one).
ALTER TABLE nudge_jobs ADD COLUMN has_steps INTEGER NOT NULL DEFAULT 0 CHECK (has_steps IN (0, 1));
ALTER TABLE nudge_jobs ADD COLUMN wait_signal TEXT;

-- The promotion finds the signal waits whose deadline passed; dependency waits are not in it.
CREATE INDEX nudge_jobs_signal_deadlines ON nudge_jobs (run_at)
  WHERE status = 'WAITING' AND wait_signal IS NOT NULL;

-- A job asleep in its first attempt is SCHEDULED with attempts = 0 (a sleep is not charged), as a
-- debounced job that never started: the debounce index and the enqueue's replace leave it out, so
-- a new enqueue under its key neither replaces its payload mid-flow nor makes its suspend
-- collide with the new job in the index.
DROP INDEX nudge_jobs_debounce;
CREATE UNIQUE INDEX nudge_jobs_debounce ON nudge_jobs (kind, debounce_key)
  WHERE debounce_key IS NOT NULL AND status = 'SCHEDULED' AND attempts = 0 AND NOT has_steps;

CREATE TABLE nudge_job_steps (
  job_id     INTEGER NOT NULL,
  name       TEXT    NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  -- Order of first record within the job: what a retry's fromStep clears from.
  position   INTEGER NOT NULL,
  type       TEXT    NOT NULL CHECK (type IN ('step', 'sleep', 'signal')),
  status     TEXT    NOT NULL
             CHECK (status IN ('SUCCEEDED', 'FAILED', 'SLEEPING', 'WAITING', 'TIMED_OUT')),
  -- The attempt that last wrote the row.
  attempt    INTEGER NOT NULL,
  result     TEXT    CHECK (result IS NULL OR json_valid(result)),
  error      TEXT,
  started_at TEXT    NOT NULL,
  ended_at   TEXT,
  -- A sleep's wake-up time, a signal wait's deadline (NULL: none).
  wake_at    TEXT,
  PRIMARY KEY (job_id, name)
) STRICT, WITHOUT ROWID;

CREATE TABLE nudge_job_signals (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id     INTEGER NOT NULL,
  name       TEXT    NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  payload    TEXT    CHECK (payload IS NULL OR json_valid(payload)),
  -- The sender's id for the signal: a second send with the same id is the first one.
  signal_id  TEXT    CHECK (length(signal_id) BETWEEN 1 AND 200),
  created_at TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  UNIQUE (job_id, signal_id)
) STRICT;
CREATE INDEX nudge_job_signals_by_name ON nudge_job_signals (job_id, name, id);

-- A signal, however it is inserted (the API, a producer's transaction, plain SQL), reaches its
-- job here, in the inserting transaction: a wait for that name ends (the job is PENDING). SQLite
-- runs one writer at a time, so a suspend, a deadline and a signal never interleave.
CREATE TRIGGER nudge_job_signal_sent
  AFTER INSERT ON nudge_job_signals
  FOR EACH ROW
BEGIN
  SELECT RAISE(ABORT, 'a signal needs an unfinished job: this job does not exist')
   WHERE NOT EXISTS (SELECT 1 FROM nudge_jobs WHERE id = NEW.job_id);
  SELECT RAISE(ABORT, 'a signal can no longer reach this job: it has finished')
   WHERE (SELECT status FROM nudge_jobs WHERE id = NEW.job_id) IN ('SUCCEEDED', 'FAILED', 'CANCELLED');
  UPDATE nudge_jobs
     SET has_steps = 1,
         status = CASE WHEN status = 'WAITING' AND wait_signal = NEW.name THEN 'PENDING' ELSE status END,
         run_at = CASE WHEN status = 'WAITING' AND wait_signal = NEW.name
                       THEN strftime('%Y-%m-%dT%H:%M:%fZ', 'now') ELSE run_at END,
         wait_signal = CASE WHEN status = 'WAITING' AND wait_signal = NEW.name THEN NULL ELSE wait_signal END
   WHERE id = NEW.job_id;
END;

-- Retention (and any delete) takes a job's steps and signals with it; a job without them pays
-- only the WHEN check.
CREATE TRIGGER nudge_jobs_steps_deleted
  AFTER DELETE ON nudge_jobs
  FOR EACH ROW WHEN OLD.has_steps
BEGIN
  DELETE FROM nudge_job_steps WHERE job_id = OLD.id;
  DELETE FROM nudge_job_signals WHERE job_id = OLD.id;
END;

-- Durable steps: ctx.step, ctx.sleep / ctx.sleepUntil and ctx.waitForSignal.
--
-- A job's steps are rows of nudge_job_steps, one per name: a finished step's result, a failed
-- step's error, a sleep's wake-up time, a signal wait's deadline. Signals sent to a job are rows
-- of nudge_job_signals; the first of a name is the one a wait returns. has_steps is set on a job
-- once it has either: a claim reads both for such a job only (a CASE on the column), so a job
-- without steps costs no claim anything new. wait_signal names the signal a WAITING job waits
-- for; run_at is then its deadline ('infinity' without one).
ALTER TABLE nudge_jobs ADD COLUMN has_steps boolean NOT NULL DEFAULT false;
ALTER TABLE nudge_jobs ADD COLUMN wait_signal text;

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
  job_id     bigint      NOT NULL,
  name       text        NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  -- Order of first record within the job: what a retry's fromStep clears from.
  position   integer     NOT NULL,
  type       text        NOT NULL CHECK (type IN ('step', 'sleep', 'signal')),
  status     text        NOT NULL
             CHECK (status IN ('SUCCEEDED', 'FAILED', 'SLEEPING', 'WAITING', 'TIMED_OUT')),
  -- The attempt that last wrote the row.
  attempt    integer     NOT NULL,
  result     jsonb,
  error      text,
  started_at timestamptz NOT NULL,
  ended_at   timestamptz,
  -- A sleep's wake-up time, a signal wait's deadline (NULL: none).
  wake_at    timestamptz,
  PRIMARY KEY (job_id, name)
);

CREATE TABLE nudge_job_signals (
  id         bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  job_id     bigint      NOT NULL,
  name       text        NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  payload    jsonb,
  -- The sender's id for the signal: a second send with the same id is the first one.
  signal_id  text        CHECK (char_length(signal_id) BETWEEN 1 AND 200),
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (job_id, signal_id)
);
CREATE INDEX nudge_job_signals_by_name ON nudge_job_signals (job_id, name, id);

-- A signal, however it is inserted (the API, a producer's transaction, plain SQL), reaches its
-- job here, in the inserting transaction. The job's row is locked first, and each statement of a
-- PL/pgSQL function reads a fresh snapshot: a suspend of the job (which locks the row, then reads
-- the signals) and a deadline (the promotion locks the row, then marks the wait timed out) are
-- serialized with it, so a wait ends exactly once, by the signal or by its deadline.
CREATE FUNCTION nudge_job_signal_sent() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  held text;
BEGIN
  SELECT status INTO held FROM nudge_jobs WHERE id = NEW.job_id FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'job % does not exist: a signal needs an unfinished job', NEW.job_id
      USING ERRCODE = 'foreign_key_violation';
  END IF;
  IF held IN ('SUCCEEDED', 'FAILED', 'CANCELLED') THEN
    RAISE EXCEPTION 'job % has finished (%): a signal can no longer reach it', NEW.job_id, held
      USING ERRCODE = 'check_violation';
  END IF;
  UPDATE nudge_jobs
     SET has_steps = true,
         status = CASE WHEN status = 'WAITING' AND wait_signal = NEW.name THEN 'PENDING' ELSE status END,
         run_at = CASE WHEN status = 'WAITING' AND wait_signal = NEW.name THEN now() ELSE run_at END,
         wait_signal = CASE WHEN status = 'WAITING' AND wait_signal = NEW.name THEN NULL ELSE wait_signal END
   WHERE id = NEW.job_id;
  RETURN NULL;
END
$$;
CREATE TRIGGER nudge_job_signal_sent
  AFTER INSERT ON nudge_job_signals
  FOR EACH ROW EXECUTE FUNCTION nudge_job_signal_sent();

-- Retention (and any delete) takes a job's steps and signals with it; a job without them pays
-- only the WHEN check.
CREATE FUNCTION nudge_jobs_steps_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM nudge_job_steps WHERE job_id = OLD.id;
  DELETE FROM nudge_job_signals WHERE job_id = OLD.id;
  RETURN NULL;
END
$$;
CREATE TRIGGER nudge_jobs_steps_deleted
  AFTER DELETE ON nudge_jobs
  FOR EACH ROW WHEN (OLD.has_steps)
  EXECUTE FUNCTION nudge_jobs_steps_deleted();

-- Job dependencies: a job may wait for other jobs to finish (dependsOn). While one of them has not
-- finished it is WAITING, a status claims never read. The outcome of its last dependency makes it
-- PENDING (SCHEDULED while its own run_at is ahead) in the same transaction, whichever write made
-- that dependency SUCCEEDED, FAILED or CANCELLED: a trigger does it, so every path is covered.
ALTER TABLE nudge_jobs DROP CONSTRAINT nudge_jobs_status_check;
ALTER TABLE nudge_jobs ADD CONSTRAINT nudge_jobs_status_check
  CHECK (status IN ('WAITING', 'SCHEDULED', 'PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'));

-- The dependent's side: the ids it depends on, in the producer's order (NULL: none), and what a
-- failed or cancelled dependency does to it ('cancel' it, or 'run' it anyway).
ALTER TABLE nudge_jobs ADD COLUMN depends_on jsonb;
ALTER TABLE nudge_jobs ADD COLUMN on_dependency_failure text
  CHECK (on_dependency_failure IN ('cancel', 'run'));
-- The dependency's side: set once some job depended on this one, so the trigger below skips
-- every other row in its WHEN clause (evaluated in C, no function call).
ALTER TABLE nudge_jobs ADD COLUMN has_dependents boolean NOT NULL DEFAULT false;

-- One row per (waiting job, dependency), kept only while the job is WAITING: the reverse lookup
-- from a dependency that finished to the jobs that wait for it. No foreign keys: retention may
-- delete a finished dependency, which then counts as finished.
CREATE TABLE nudge_job_dependencies (
  job_id        bigint NOT NULL,
  depends_on_id bigint NOT NULL,
  PRIMARY KEY (depends_on_id, job_id)
);
CREATE INDEX nudge_job_dependencies_job ON nudge_job_dependencies (job_id);

-- Runs when a row becomes SUCCEEDED, FAILED or CANCELLED and either has dependents or was itself
-- WAITING. Race-free under READ COMMITTED: the waiting dependents are locked (in id order) before
-- they are read, so two dependencies finishing at once serialize on them, and each later statement
-- of this function takes a fresh snapshot that sees the other's committed outcome. An enqueue of a
-- dependent locks its dependencies' rows (FOR NO KEY UPDATE, setting has_dependents), so a
-- dependency cannot finish between the enqueue's read of its status and the enqueue's commit.
CREATE FUNCTION nudge_jobs_dependency_outcome() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  released integer;
BEGIN
  IF OLD.status = 'WAITING' THEN
    DELETE FROM nudge_job_dependencies WHERE job_id = NEW.id;
  END IF;
  IF NOT NEW.has_dependents THEN
    RETURN NULL;
  END IF;
  PERFORM 1 FROM nudge_jobs
    WHERE id IN (SELECT job_id FROM nudge_job_dependencies WHERE depends_on_id = NEW.id)
      AND status = 'WAITING'
    ORDER BY id FOR NO KEY UPDATE;
  -- Each cancel fires this trigger again for the cancelled job: the cancel cascades down the chain.
  IF NEW.status <> 'SUCCEEDED' THEN
    UPDATE nudge_jobs
       SET status = 'CANCELLED', finished_at = now(),
           last_error = format('dependency %s ended %s', NEW.id, NEW.status)
     WHERE id IN (SELECT job_id FROM nudge_job_dependencies WHERE depends_on_id = NEW.id)
       AND status = 'WAITING' AND on_dependency_failure = 'cancel';
  END IF;
  WITH ready AS (
    UPDATE nudge_jobs AS j
       SET status = CASE WHEN j.run_at > now() THEN 'SCHEDULED' ELSE 'PENDING' END
     WHERE j.id IN (SELECT job_id FROM nudge_job_dependencies WHERE depends_on_id = NEW.id)
       AND j.status = 'WAITING'
       AND NOT EXISTS (
             SELECT 1 FROM nudge_job_dependencies AS e JOIN nudge_jobs AS d ON d.id = e.depends_on_id
              WHERE e.job_id = j.id AND d.status NOT IN ('SUCCEEDED', 'FAILED', 'CANCELLED'))
    RETURNING j.id, j.status
  ), forgotten AS (
    DELETE FROM nudge_job_dependencies WHERE job_id IN (SELECT id FROM ready)
  )
  SELECT count(*) FILTER (WHERE status = 'PENDING') INTO released FROM ready;
  IF released > 0 THEN
    PERFORM pg_notify('nudge_jobs', '');
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER nudge_jobs_dependency_outcome
  AFTER UPDATE OF status ON nudge_jobs
  FOR EACH ROW
  WHEN (NEW.status IN ('SUCCEEDED', 'FAILED', 'CANCELLED') AND OLD.status <> NEW.status
        AND (NEW.has_dependents OR OLD.status = 'WAITING'))
  EXECUTE FUNCTION nudge_jobs_dependency_outcome();

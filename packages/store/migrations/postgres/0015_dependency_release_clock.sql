-- A dependent released by its last dependency is PENDING unless its own run_at is still ahead of
-- the clock at the moment of release. Before, the release compared run_at with now(), the start
-- of the finishing transaction. An enqueue of the dependent may begin after that transaction and
-- commit while the transaction waits on the dependency's row lock (the enqueue holds it): the
-- dependent's run_at (the enqueue's now()) was then ahead of the finisher's now(), and a job due
-- at once waited SCHEDULED for the next promotion pass. clock_timestamp() at release is after the
-- enqueue's commit, so such a dependent is due.
CREATE OR REPLACE FUNCTION nudge_jobs_dependency_outcome() RETURNS trigger LANGUAGE plpgsql AS $$
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
       SET status = CASE WHEN j.run_at > clock_timestamp() THEN 'SCHEDULED' ELSE 'PENDING' END
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

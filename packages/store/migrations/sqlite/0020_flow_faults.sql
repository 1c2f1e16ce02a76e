-- Four faults of flow control.
--
-- 1. A debounced job that failed once waits SCHEDULED for its retry: the unique index over
--    SCHEDULED rows refused that write whenever a new job of the same key waited already. The
--    index (and the enqueue's replace) now covers only a debounced job that never started
--    (attempts = 0): a retry, a requeue by the sweep or a release never meets it.
DROP INDEX nudge_jobs_debounce;
CREATE UNIQUE INDEX nudge_jobs_debounce ON nudge_jobs (kind, debounce_key)
  WHERE debounce_key IS NOT NULL AND status = 'SCHEDULED' AND attempts = 0;

-- 2. A cancel cascaded down a chain by this trigger firing again for each cancelled job, one
--    level of trigger recursion per link: a long chain hit `too many levels of trigger
--    recursion`. Now the trigger finds every WAITING job that cancels on a failed dependency,
--    down from this one (a recursive query over nudge_job_dependencies), writes them here, forgets
--    their edges and cancels them in one statement, then releases the 'run' dependents of this
--    job and of every job it cancelled (so no recursion is needed; with recursive_triggers on,
--    the trigger fires for each job so cancelled, one level down, finds no edge to a job left to
--    cancel and may release those dependents first). Rows live only inside the trigger.
CREATE TABLE nudge_dependency_cancels (
  root_id       INTEGER NOT NULL,
  job_id        INTEGER NOT NULL,
  dependency_id INTEGER NOT NULL,
  PRIMARY KEY (root_id, job_id)
) STRICT, WITHOUT ROWID;

-- 3. A retried dependent may wait (WAITING) for a dependency that ended FAILED or CANCELLED and is
--    retried by the same command: a job that cancels on a failed dependency is not released while
--    one of its dependencies has not succeeded, only when it has (or it is cancelled again).
DROP TRIGGER nudge_jobs_dependency_outcome;
CREATE TRIGGER nudge_jobs_dependency_outcome
  AFTER UPDATE OF status ON nudge_jobs
  FOR EACH ROW
  WHEN NEW.status IN ('SUCCEEDED', 'FAILED', 'CANCELLED') AND OLD.status <> NEW.status
       AND (NEW.has_dependents OR OLD.status = 'WAITING')
BEGIN
  DELETE FROM nudge_job_dependencies WHERE OLD.status = 'WAITING' AND job_id = NEW.id;
  INSERT INTO nudge_dependency_cancels (root_id, job_id, dependency_id)
    WITH RECURSIVE doomed (id, dependency) AS (
      SELECT e.job_id, e.depends_on_id
        FROM nudge_job_dependencies AS e JOIN nudge_jobs AS j ON j.id = e.job_id
       WHERE NEW.has_dependents AND NEW.status <> 'SUCCEEDED' AND e.depends_on_id = NEW.id
         AND j.status = 'WAITING' AND j.on_dependency_failure = 'cancel'
      UNION
      SELECT e.job_id, e.depends_on_id
        FROM doomed AS c
        JOIN nudge_job_dependencies AS e ON e.depends_on_id = c.id
        JOIN nudge_jobs AS j ON j.id = e.job_id
       WHERE j.status = 'WAITING' AND j.on_dependency_failure = 'cancel'
    )
    SELECT NEW.id, id, min(dependency) FROM doomed GROUP BY id;
  DELETE FROM nudge_job_dependencies
   WHERE job_id IN (SELECT job_id FROM nudge_dependency_cancels WHERE root_id = NEW.id);
  UPDATE nudge_jobs
     SET status = 'CANCELLED', finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'),
         last_error = (SELECT 'dependency ' || c.dependency_id || ' ended '
                              || CASE WHEN c.dependency_id = NEW.id THEN NEW.status ELSE 'CANCELLED' END
                         FROM nudge_dependency_cancels AS c
                        WHERE c.root_id = NEW.id AND c.job_id = nudge_jobs.id)
   WHERE id IN (SELECT job_id FROM nudge_dependency_cancels WHERE root_id = NEW.id)
     AND status = 'WAITING';
  UPDATE nudge_jobs
     SET status = CASE WHEN run_at > strftime('%Y-%m-%dT%H:%M:%fZ', 'now') THEN 'SCHEDULED' ELSE 'PENDING' END
   WHERE NEW.has_dependents
     AND id IN (SELECT job_id FROM nudge_job_dependencies
                 WHERE depends_on_id = NEW.id
                    OR depends_on_id IN (SELECT job_id FROM nudge_dependency_cancels WHERE root_id = NEW.id))
     AND status = 'WAITING'
     AND NOT EXISTS (
           SELECT 1 FROM nudge_job_dependencies AS e JOIN nudge_jobs AS d ON d.id = e.depends_on_id
            WHERE e.job_id = nudge_jobs.id AND d.status <> 'SUCCEEDED'
              AND (d.status NOT IN ('FAILED', 'CANCELLED') OR nudge_jobs.on_dependency_failure = 'cancel'));
  DELETE FROM nudge_job_dependencies
   WHERE NEW.has_dependents
     AND job_id IN (SELECT e.job_id FROM nudge_job_dependencies AS e JOIN nudge_jobs AS j ON j.id = e.job_id
                     WHERE (e.depends_on_id = NEW.id
                            OR e.depends_on_id IN (SELECT job_id FROM nudge_dependency_cancels WHERE root_id = NEW.id))
                       AND j.status <> 'WAITING');
  DELETE FROM nudge_dependency_cancels WHERE root_id = NEW.id;
END;

-- 4. A dependency deleted by hand before it succeeded left its dependents WAITING for ever. It
--    now counts as a dependency that did not succeed, as a missing one does at enqueue
--    (`dependency 7 does not exist`): its dependents are cancelled or released, as by the
--    trigger above. A deleted WAITING job forgets its own edges. Retention deletes finished jobs;
--    the dependents of a SUCCEEDED one were released already, so it skips them.
CREATE TRIGGER nudge_jobs_dependency_deleted
  AFTER DELETE ON nudge_jobs
  FOR EACH ROW
  WHEN (OLD.has_dependents AND OLD.status <> 'SUCCEEDED') OR OLD.status = 'WAITING'
BEGIN
  DELETE FROM nudge_job_dependencies WHERE OLD.status = 'WAITING' AND job_id = OLD.id;
  INSERT INTO nudge_dependency_cancels (root_id, job_id, dependency_id)
    WITH RECURSIVE doomed (id, dependency) AS (
      SELECT e.job_id, e.depends_on_id
        FROM nudge_job_dependencies AS e JOIN nudge_jobs AS j ON j.id = e.job_id
       WHERE OLD.has_dependents AND e.depends_on_id = OLD.id
         AND j.status = 'WAITING' AND j.on_dependency_failure = 'cancel'
      UNION
      SELECT e.job_id, e.depends_on_id
        FROM doomed AS c
        JOIN nudge_job_dependencies AS e ON e.depends_on_id = c.id
        JOIN nudge_jobs AS j ON j.id = e.job_id
       WHERE j.status = 'WAITING' AND j.on_dependency_failure = 'cancel'
    )
    SELECT OLD.id, id, min(dependency) FROM doomed GROUP BY id;
  DELETE FROM nudge_job_dependencies
   WHERE job_id IN (SELECT job_id FROM nudge_dependency_cancels WHERE root_id = OLD.id);
  UPDATE nudge_jobs
     SET status = 'CANCELLED', finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'),
         last_error = (SELECT 'dependency ' || c.dependency_id || ' '
                              || CASE WHEN c.dependency_id = OLD.id THEN 'does not exist' ELSE 'ended CANCELLED' END
                         FROM nudge_dependency_cancels AS c
                        WHERE c.root_id = OLD.id AND c.job_id = nudge_jobs.id)
   WHERE id IN (SELECT job_id FROM nudge_dependency_cancels WHERE root_id = OLD.id)
     AND status = 'WAITING';
  UPDATE nudge_jobs
     SET status = CASE WHEN run_at > strftime('%Y-%m-%dT%H:%M:%fZ', 'now') THEN 'SCHEDULED' ELSE 'PENDING' END
   WHERE OLD.has_dependents
     AND id IN (SELECT job_id FROM nudge_job_dependencies
                 WHERE depends_on_id = OLD.id
                    OR depends_on_id IN (SELECT job_id FROM nudge_dependency_cancels WHERE root_id = OLD.id))
     AND status = 'WAITING'
     AND NOT EXISTS (
           SELECT 1 FROM nudge_job_dependencies AS e JOIN nudge_jobs AS d ON d.id = e.depends_on_id
            WHERE e.job_id = nudge_jobs.id AND d.status <> 'SUCCEEDED'
              AND (d.status NOT IN ('FAILED', 'CANCELLED') OR nudge_jobs.on_dependency_failure = 'cancel'));
  DELETE FROM nudge_job_dependencies
   WHERE OLD.has_dependents
     AND job_id IN (SELECT e.job_id FROM nudge_job_dependencies AS e JOIN nudge_jobs AS j ON j.id = e.job_id
                     WHERE (e.depends_on_id = OLD.id
                            OR e.depends_on_id IN (SELECT job_id FROM nudge_dependency_cancels WHERE root_id = OLD.id))
                       AND j.status <> 'WAITING');
  DELETE FROM nudge_dependency_cancels WHERE root_id = OLD.id;
END;

-- SQLite's edges lose their job_id index: a batch of 1,000 jobs that each wait for the same 1,000
-- jobs wrote 1,000,000 edges, 1.4 s of its 2.3 s, each a row of the table and an entry of that
-- index. Every read of a job's edges now goes through its own depends_on list and the primary key
-- (depends_on_id, job_id): a job's edges are deleted by those pairs, and a waiting job is
-- released when no dependency in its list is unfinished (a dependency that had succeeded when the
-- job was enqueued has no edge but is in the list, and counts as finished, as before). The two
-- dependency triggers are those of 0020 with each lookup by job_id so rewritten.
DROP INDEX nudge_job_dependencies_job;

DROP TRIGGER nudge_jobs_dependency_deleted;
CREATE TRIGGER nudge_jobs_dependency_deleted
  AFTER DELETE ON nudge_jobs
  FOR EACH ROW
  WHEN (OLD.has_dependents AND OLD.status <> 'SUCCEEDED') OR OLD.status = 'WAITING'
BEGIN
  DELETE FROM nudge_job_dependencies
   WHERE OLD.status = 'WAITING' AND depends_on_id IN (SELECT value FROM json_each(OLD.depends_on))
     AND job_id = OLD.id;
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
   WHERE (depends_on_id, job_id) IN (
           SELECT x.value, c.job_id
             FROM nudge_dependency_cancels AS c JOIN nudge_jobs AS j ON j.id = c.job_id,
                  json_each(j.depends_on) AS x
            WHERE c.root_id = OLD.id);
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
           SELECT 1 FROM json_each(nudge_jobs.depends_on) AS x JOIN nudge_jobs AS d ON d.id = x.value
            WHERE d.status <> 'SUCCEEDED'
              AND (d.status NOT IN ('FAILED', 'CANCELLED') OR nudge_jobs.on_dependency_failure = 'cancel'));
  DELETE FROM nudge_job_dependencies
   WHERE OLD.has_dependents
     AND (depends_on_id, job_id) IN (
           SELECT x.value, j.id
             FROM nudge_job_dependencies AS e JOIN nudge_jobs AS j ON j.id = e.job_id,
                  json_each(j.depends_on) AS x
            WHERE (e.depends_on_id = OLD.id
                   OR e.depends_on_id IN (SELECT job_id FROM nudge_dependency_cancels WHERE root_id = OLD.id))
              AND j.status <> 'WAITING');
  DELETE FROM nudge_dependency_cancels WHERE root_id = OLD.id;
END;

DROP TRIGGER nudge_jobs_dependency_outcome;
CREATE TRIGGER nudge_jobs_dependency_outcome
  AFTER UPDATE OF status ON nudge_jobs
  FOR EACH ROW
  WHEN NEW.status IN ('SUCCEEDED', 'FAILED', 'CANCELLED') AND OLD.status <> NEW.status
       AND (NEW.has_dependents OR OLD.status = 'WAITING')
BEGIN
  DELETE FROM nudge_job_dependencies
   WHERE OLD.status = 'WAITING' AND depends_on_id IN (SELECT value FROM json_each(NEW.depends_on))
     AND job_id = NEW.id;
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
   WHERE (depends_on_id, job_id) IN (
           SELECT x.value, c.job_id
             FROM nudge_dependency_cancels AS c JOIN nudge_jobs AS j ON j.id = c.job_id,
                  json_each(j.depends_on) AS x
            WHERE c.root_id = NEW.id);
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
           SELECT 1 FROM json_each(nudge_jobs.depends_on) AS x JOIN nudge_jobs AS d ON d.id = x.value
            WHERE d.status <> 'SUCCEEDED'
              AND (d.status NOT IN ('FAILED', 'CANCELLED') OR nudge_jobs.on_dependency_failure = 'cancel'));
  DELETE FROM nudge_job_dependencies
   WHERE NEW.has_dependents
     AND (depends_on_id, job_id) IN (
           SELECT x.value, j.id
             FROM nudge_job_dependencies AS e JOIN nudge_jobs AS j ON j.id = e.job_id,
                  json_each(j.depends_on) AS x
            WHERE (e.depends_on_id = NEW.id
                   OR e.depends_on_id IN (SELECT job_id FROM nudge_dependency_cancels WHERE root_id = NEW.id))
              AND j.status <> 'WAITING');
  DELETE FROM nudge_dependency_cancels WHERE root_id = NEW.id;
END;

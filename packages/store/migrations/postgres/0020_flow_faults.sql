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
--    level of recursion per link: a long chain hit `stack depth limit exceeded`. Now the trigger
--    finds every WAITING job that cancels on a failed dependency, down from this one (a recursive
--    query over nudge_job_dependencies), forgets their edges and cancels them in one statement,
--    then releases the 'run' dependents of all of them. The trigger does not fire for the jobs so
--    cancelled (its WHEN reads a transaction-local setting the cascade sets around its UPDATE),
--    so a cascade of any length is one trigger call, not one per job.
-- 3. A retried dependent may wait (WAITING) for a dependency that ended FAILED or CANCELLED and is
--    retried by the same command: a job that cancels on a failed dependency is not released while
--    one of its dependencies has not succeeded, only when it has (or it is cancelled again).
--
-- The trigger's work on the dependents moves to a function, which a deleted dependency runs too
-- (4. below). What a dependency that finished (or was deleted) does to the jobs waiting for it: cancels those
-- that cancel on its failure, down the chain, then releases each one whose last dependency it was.
-- `outcome` is SUCCEEDED, FAILED, CANCELLED, or NULL for a deleted job (which did not succeed).
CREATE FUNCTION nudge_dependency_finished(finished_id bigint, outcome text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  released integer;
  doomed_ids bigint[];
  doomed_by bigint[];
BEGIN
  PERFORM 1 FROM nudge_jobs
    WHERE id IN (SELECT job_id FROM nudge_job_dependencies WHERE depends_on_id = finished_id)
      AND status = 'WAITING'
    ORDER BY id FOR NO KEY UPDATE;
  -- Only when a dependent cancels.
  IF outcome IS DISTINCT FROM 'SUCCEEDED' AND EXISTS (
       SELECT 1 FROM nudge_job_dependencies AS e
        WHERE e.depends_on_id = finished_id
          AND (SELECT j.status = 'WAITING' AND j.on_dependency_failure = 'cancel'
                 FROM nudge_jobs AS j WHERE j.id = e.job_id)) THEN
    -- Index probes only, whatever the statistics say: the edges of each job found (OFFSET 0 keeps
    -- that lookup a subquery run per row), and each dependent's row by primary key (a scalar
    -- subquery, never turned into a join). A join plan, chosen on stale statistics that count
    -- few WAITING rows, read the whole table once per job of the chain.
    WITH RECURSIVE doomed (id, dependency) AS (
      SELECT e.job_id, e.depends_on_id
        FROM nudge_job_dependencies AS e
       WHERE e.depends_on_id = finished_id
         AND (SELECT j.status = 'WAITING' AND j.on_dependency_failure = 'cancel'
                FROM nudge_jobs AS j WHERE j.id = e.job_id)
      UNION
      SELECT e.job_id, e.depends_on_id
        FROM doomed AS c
        CROSS JOIN LATERAL (
          SELECT d.job_id, d.depends_on_id FROM nudge_job_dependencies AS d
           WHERE d.depends_on_id = c.id OFFSET 0) AS e
       WHERE (SELECT j.status = 'WAITING' AND j.on_dependency_failure = 'cancel'
                FROM nudge_jobs AS j WHERE j.id = e.job_id)
    )
    SELECT array_agg(id ORDER BY id), array_agg(dependency ORDER BY id) INTO doomed_ids, doomed_by
      FROM (SELECT id, min(dependency) AS dependency FROM doomed GROUP BY id) AS c;
    -- Locked in id order, as the dependents above; `= ANY` of the primary key reads them so.
    PERFORM 1 FROM nudge_jobs WHERE id = ANY(doomed_ids) ORDER BY id FOR NO KEY UPDATE;
    DELETE FROM nudge_job_dependencies WHERE job_id = ANY(doomed_ids);
    -- The trigger skips the jobs this statement cancels (its WHEN reads the setting as each row
    -- changes): their dependents are this function's, below, so no trigger call per job.
    PERFORM set_config('nudge.dependency_cascade', 'on', true);
    UPDATE nudge_jobs AS j
       SET status = 'CANCELLED', finished_at = now(),
           last_error = CASE WHEN c.dependency <> finished_id THEN format('dependency %s ended CANCELLED', c.dependency)
                             WHEN outcome IS NULL THEN format('dependency %s does not exist', c.dependency)
                             ELSE format('dependency %s ended %s', c.dependency, outcome) END
      FROM unnest(doomed_ids, doomed_by) AS c (id, dependency)
     WHERE j.id = c.id AND j.status = 'WAITING';
    PERFORM set_config('nudge.dependency_cascade', 'off', true);
    -- Their 'run' dependents, locked as the direct ones above before the release reads them.
    PERFORM 1 FROM nudge_jobs
      WHERE id IN (SELECT job_id FROM nudge_job_dependencies WHERE depends_on_id = ANY(doomed_ids))
        AND status = 'WAITING'
      ORDER BY id FOR NO KEY UPDATE;
  END IF;
  WITH ready AS (
    UPDATE nudge_jobs AS j
       SET status = CASE WHEN j.run_at > clock_timestamp() THEN 'SCHEDULED' ELSE 'PENDING' END
     WHERE j.id IN (SELECT job_id FROM nudge_job_dependencies WHERE depends_on_id = finished_id
                    UNION ALL
                    SELECT job_id FROM nudge_job_dependencies WHERE depends_on_id = ANY(doomed_ids))
       AND j.status = 'WAITING'
       AND NOT EXISTS (
             SELECT 1 FROM nudge_job_dependencies AS e JOIN nudge_jobs AS d ON d.id = e.depends_on_id
              WHERE e.job_id = j.id AND d.status <> 'SUCCEEDED'
                AND (d.status NOT IN ('FAILED', 'CANCELLED') OR j.on_dependency_failure = 'cancel'))
    RETURNING j.id, j.status
  ), forgotten AS (
    DELETE FROM nudge_job_dependencies WHERE job_id IN (SELECT id FROM ready)
  )
  SELECT count(*) FILTER (WHERE status = 'PENDING') INTO released FROM ready;
  IF released > 0 THEN
    PERFORM pg_notify('nudge_jobs', '');
  END IF;
END
$$;

-- Runs as before: when a row becomes SUCCEEDED, FAILED or CANCELLED and either has dependents or
-- was itself WAITING.
CREATE OR REPLACE FUNCTION nudge_jobs_dependency_outcome() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.status = 'WAITING' THEN
    DELETE FROM nudge_job_dependencies WHERE job_id = NEW.id;
  END IF;
  IF NEW.has_dependents THEN
    PERFORM nudge_dependency_finished(NEW.id, NEW.status);
  END IF;
  RETURN NULL;
END
$$;

-- 4. A dependency deleted by hand before it succeeded left its dependents WAITING for ever. It
--    now counts as a dependency that did not succeed, as a missing one does at enqueue
--    (`dependency 7 does not exist`): its dependents are cancelled or released. A deleted
--    WAITING job forgets its own edges. Retention deletes finished jobs; those of a SUCCEEDED one
--    were released already, so only other deletions run the function.
CREATE FUNCTION nudge_jobs_dependency_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.status = 'WAITING' THEN
    DELETE FROM nudge_job_dependencies WHERE job_id = OLD.id;
  END IF;
  IF OLD.has_dependents THEN
    PERFORM nudge_dependency_finished(OLD.id, NULL);
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER nudge_jobs_dependency_deleted
  AFTER DELETE ON nudge_jobs
  FOR EACH ROW
  WHEN ((OLD.has_dependents AND OLD.status <> 'SUCCEEDED') OR OLD.status = 'WAITING')
  EXECUTE FUNCTION nudge_jobs_dependency_deleted();

-- The outcome trigger as 0009 made it, but for the jobs a cascade cancels (see above).
DROP TRIGGER nudge_jobs_dependency_outcome ON nudge_jobs;
CREATE TRIGGER nudge_jobs_dependency_outcome
  AFTER UPDATE OF status ON nudge_jobs
  FOR EACH ROW
  WHEN (NEW.status IN ('SUCCEEDED', 'FAILED', 'CANCELLED') AND OLD.status <> NEW.status
        AND (NEW.has_dependents OR OLD.status = 'WAITING')
        AND current_setting('nudge.dependency_cascade', true) IS DISTINCT FROM 'on')
  EXECUTE FUNCTION nudge_jobs_dependency_outcome();

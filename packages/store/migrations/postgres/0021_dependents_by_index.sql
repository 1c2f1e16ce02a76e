-- The jobs waiting for a dependency are found through their own depends_on lists, by a partial
-- GIN index over the WAITING rows, instead of nudge_job_dependencies (one row per job and
-- dependency). A batch of 1,000 jobs that each wait for the same 1,000 jobs wrote 1,000,000 edge
-- rows, each a heap row and two B-tree entries: 1.9 s of the batch's 2.25 s in the server. The
-- index keeps one posting list per dependency: 0.25 s for the same lists. It also needs no
-- upkeep: a row that leaves WAITING leaves the index, so nothing deletes edges any more.
--
-- The pending list (fastupdate) is what makes a large batch cheap: entries are appended there and
-- merged into the index in bulk. Every lookup reads the whole list, though: 0.4 ms with 256 kB,
-- 0.07 ms with the list empty. 256 kB (from the default 4 MB) bounds the lookup of an outcome. A
-- cancel cascade makes one lookup per job it cancels, so it empties the list first (below): a
-- chain of 5,000 took 5.7 s with the list as it was, 0.2 s with it empty. A smaller limit (64 kB,
-- the least) made the 1,000 x 1,000 batch flush so often that its insert took 1.2 s.
--
-- A lookup must say status = 'WAITING' (the index's predicate) and `depends_on @> [id]`, which
-- jsonb_path_ops answers from the hash of the id; the heap recheck then reads the list itself.
-- A list may name a dependency that had succeeded or did not exist when the job was enqueued; the
-- release below reads each dependency's status, so those count as finished, as before.
CREATE INDEX nudge_jobs_waiting_on ON nudge_jobs USING gin (depends_on jsonb_path_ops)
  WITH (gin_pending_list_limit = 256)
  WHERE status = 'WAITING';

-- What a dependency that finished (or was deleted: outcome NULL) does to the jobs waiting for it,
-- as 0020 wrote it, with each lookup of nudge_job_dependencies now one of the index above. A
-- lookup per id is a subquery run per row (OFFSET 0): GIN answers no `= ANY`. GIN is read by
-- bitmap scans only, which the store's sessions turn off (enable_bitmapscan, see pg-pool.ts), as
-- may a role's settings behind a pooler: the function turns them on while it runs. Without them
-- each lookup read every row of the table (a chain of 5,000 passed the 10 s statement timeout).
CREATE OR REPLACE FUNCTION nudge_dependency_finished(finished_id bigint, outcome text) RETURNS void
LANGUAGE plpgsql SET enable_bitmapscan = on AS $$
DECLARE
  released integer;
  doomed_ids bigint[];
  doomed_by bigint[];
BEGIN
  PERFORM 1 FROM nudge_jobs
    WHERE status = 'WAITING' AND depends_on @> jsonb_build_array(finished_id)
    ORDER BY id FOR NO KEY UPDATE;
  -- Only when a dependent cancels.
  IF outcome IS DISTINCT FROM 'SUCCEEDED' AND EXISTS (
       SELECT 1 FROM nudge_jobs
        WHERE status = 'WAITING' AND depends_on @> jsonb_build_array(finished_id)
          AND on_dependency_failure = 'cancel') THEN
    -- Each lookup below then reads an empty pending list. Only the index's owner may empty it (the
    -- role that migrated, which is the service's own); any other role cascades as it is, slower.
    BEGIN
      PERFORM gin_clean_pending_list('nudge_jobs_waiting_on'::regclass);
    EXCEPTION WHEN insufficient_privilege THEN
      NULL;
    END;
    WITH RECURSIVE doomed (id, dependency) AS (
      SELECT j.id, finished_id
        FROM nudge_jobs AS j
       WHERE j.status = 'WAITING' AND j.depends_on @> jsonb_build_array(finished_id)
         AND j.on_dependency_failure = 'cancel'
      UNION
      SELECT e.id, c.id
        FROM doomed AS c
        CROSS JOIN LATERAL (
          SELECT j.id FROM nudge_jobs AS j
           WHERE j.status = 'WAITING' AND j.depends_on @> jsonb_build_array(c.id)
             AND j.on_dependency_failure = 'cancel'
          OFFSET 0) AS e
    )
    SELECT array_agg(id ORDER BY id), array_agg(dependency ORDER BY id) INTO doomed_ids, doomed_by
      FROM (SELECT id, min(dependency) AS dependency FROM doomed GROUP BY id) AS c;
    -- Locked in id order, as the dependents above; `= ANY` of the primary key reads them so.
    PERFORM 1 FROM nudge_jobs WHERE id = ANY(doomed_ids) ORDER BY id FOR NO KEY UPDATE;
    -- The trigger skips the jobs this statement cancels (its WHEN reads the setting as each row
    -- changes): their dependents are this function's, below, so no trigger call per job.
    PERFORM set_config('nudge.dependency_cascade', 'on', true);
    UPDATE nudge_jobs AS j
       SET status = 'CANCELLED', finished_at = now(),
           last_error = CASE WHEN c.dependency <> finished_id THEN format('dependency %s ended CANCELLED', c.dependency)
                             WHEN outcome IS NULL THEN format('dependency %s does not exist', c.dependency)
                             ELSE format('dependency %s ended %s', c.dependency, outcome) END
      FROM unnest(doomed_ids, doomed_by) AS c (id, dependency)
     -- `= ANY` makes the rows primary-key probes: a join alone read the whole table at 20,000 jobs.
     WHERE j.id = ANY(doomed_ids) AND j.id = c.id AND j.status = 'WAITING';
    PERFORM set_config('nudge.dependency_cascade', 'off', true);
    -- Their 'run' dependents, locked as the direct ones above before the release reads them.
    PERFORM 1 FROM nudge_jobs
      WHERE id IN (SELECT e.id FROM unnest(doomed_ids) AS c (id)
                    CROSS JOIN LATERAL (
                      SELECT j.id FROM nudge_jobs AS j
                       WHERE j.status = 'WAITING' AND j.depends_on @> jsonb_build_array(c.id)
                      OFFSET 0) AS e)
      ORDER BY id FOR NO KEY UPDATE;
  END IF;
  WITH waiting AS (
    SELECT j.id FROM nudge_jobs AS j
     WHERE j.status = 'WAITING' AND j.depends_on @> jsonb_build_array(finished_id)
    UNION ALL
    SELECT e.id FROM unnest(doomed_ids) AS c (id)
     CROSS JOIN LATERAL (
       SELECT j.id FROM nudge_jobs AS j
        WHERE j.status = 'WAITING' AND j.depends_on @> jsonb_build_array(c.id)
       OFFSET 0) AS e
  ), ready AS (
    UPDATE nudge_jobs AS j
       SET status = CASE WHEN j.run_at > clock_timestamp() THEN 'SCHEDULED' ELSE 'PENDING' END
     WHERE j.id IN (SELECT id FROM waiting)
       AND j.status = 'WAITING'
       AND NOT EXISTS (
             SELECT 1 FROM jsonb_array_elements_text(j.depends_on) AS x
               JOIN nudge_jobs AS d ON d.id = x.value::bigint
              WHERE d.status <> 'SUCCEEDED'
                AND (d.status NOT IN ('FAILED', 'CANCELLED') OR j.on_dependency_failure = 'cancel'))
    RETURNING j.id, j.status
  )
  SELECT count(*) FILTER (WHERE status = 'PENDING') INTO released FROM ready;
  IF released > 0 THEN
    PERFORM pg_notify('nudge_jobs', '');
  END IF;
END
$$;

-- As 0020, without the edges to forget.
CREATE OR REPLACE FUNCTION nudge_jobs_dependency_outcome() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.has_dependents THEN
    PERFORM nudge_dependency_finished(NEW.id, NEW.status);
  END IF;
  RETURN NULL;
END
$$;
DROP TRIGGER nudge_jobs_dependency_outcome ON nudge_jobs;
CREATE TRIGGER nudge_jobs_dependency_outcome
  AFTER UPDATE OF status ON nudge_jobs
  FOR EACH ROW
  WHEN (NEW.status IN ('SUCCEEDED', 'FAILED', 'CANCELLED') AND OLD.status <> NEW.status
        AND NEW.has_dependents
        AND current_setting('nudge.dependency_cascade', true) IS DISTINCT FROM 'on')
  EXECUTE FUNCTION nudge_jobs_dependency_outcome();

CREATE OR REPLACE FUNCTION nudge_jobs_dependency_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM nudge_dependency_finished(OLD.id, NULL);
  RETURN NULL;
END
$$;
DROP TRIGGER nudge_jobs_dependency_deleted ON nudge_jobs;
CREATE TRIGGER nudge_jobs_dependency_deleted
  AFTER DELETE ON nudge_jobs
  FOR EACH ROW
  WHEN (OLD.has_dependents AND OLD.status <> 'SUCCEEDED')
  EXECUTE FUNCTION nudge_jobs_dependency_deleted();

DROP TABLE nudge_job_dependencies;

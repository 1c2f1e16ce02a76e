-- A job WAITING for a signal (ctx.waitForSignal, 0024) waits for no dependency: its own
-- dependencies had finished before it ran. The dependency release found it anyway, through the
-- depends_on list that the partial GIN index of 0021 keeps for every WAITING row: when one of its
-- dependencies finished again (a job with onDependencyFailure 'run' runs after a dependency
-- failed; that dependency was then retried and finished), the release moved the job to PENDING,
-- or to SCHEDULED at its run_at, which for a signal wait is the wait's deadline ('infinity'
-- without one). Such a job slept until the deadline, or for ever, and no signal reached it any
-- more (the signal's trigger releases WAITING rows only). The release and the cancel cascade now
-- leave signal waits alone: nudge_dependency_finished as 0021 wrote it, with `wait_signal IS NULL`
-- beside each `status = 'WAITING'` that decides what to release or cancel.
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
         AND j.on_dependency_failure = 'cancel' AND j.wait_signal IS NULL
      UNION
      SELECT e.id, c.id
        FROM doomed AS c
        CROSS JOIN LATERAL (
          SELECT j.id FROM nudge_jobs AS j
           WHERE j.status = 'WAITING' AND j.depends_on @> jsonb_build_array(c.id)
             AND j.on_dependency_failure = 'cancel' AND j.wait_signal IS NULL
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
       AND j.status = 'WAITING' AND j.wait_signal IS NULL
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

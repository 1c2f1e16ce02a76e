-- Jobs that are not due yet (a future run_at, or a retry waiting out its backoff) get their own
-- status, SCHEDULED, so the claim index holds only runnable work: a claim never reads a row that
-- is not due, however many are scheduled. The scheduler promotes SCHEDULED rows to PENDING once
-- run_at has passed, by the database clock.
ALTER TABLE nudge_jobs DROP CONSTRAINT nudge_jobs_status_check;
ALTER TABLE nudge_jobs ADD CONSTRAINT nudge_jobs_status_check
  CHECK (status IN ('SCHEDULED', 'PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'));

UPDATE nudge_jobs SET status = 'SCHEDULED' WHERE status = 'PENDING' AND run_at > now();

-- The sweep's lookup of expired leases. Only RUNNING rows have a lease, so the predicate holds
-- the same rows as `status = 'RUNNING'` did; but a predicate on status let the planner pick this
-- index for the batch writes (complete, fail, heartbeat: `… AND status = 'RUNNING'`) and scan
-- every running row and its dead versions instead of looking up each id in the primary key.
DROP INDEX nudge_jobs_leases;
CREATE INDEX nudge_jobs_leases ON nudge_jobs (lease_expires_at) WHERE lease_expires_at IS NOT NULL;

-- The scheduler's lookup of due rows, and of the next one to come due.
CREATE INDEX nudge_jobs_scheduled ON nudge_jobs (run_at) WHERE status = 'SCHEDULED';

-- A producer's plain INSERT keeps working: a PENDING row whose run_at is in the future is stored
-- as SCHEDULED. The WHEN clause is evaluated in C, so rows due now never enter the function.
CREATE FUNCTION nudge_jobs_schedule_future() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.status := 'SCHEDULED';
  RETURN NEW;
END
$$;
CREATE TRIGGER nudge_jobs_schedule_future
  BEFORE INSERT ON nudge_jobs
  FOR EACH ROW WHEN (NEW.status = 'PENDING' AND NEW.run_at > now())
  EXECUTE FUNCTION nudge_jobs_schedule_future();

-- Service instances and the kinds they have handlers for, refreshed on every heartbeat. A PENDING
-- job whose kind no live instance has is failed after a grace period instead of waiting forever.
CREATE TABLE nudge_instances (
  id           text        PRIMARY KEY,
  host         text        NOT NULL,
  pid          integer     NOT NULL,
  kinds        text[]      NOT NULL,
  started_at   timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now()
);

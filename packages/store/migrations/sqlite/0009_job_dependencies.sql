-- Job dependencies: a job may wait for other jobs to finish (dependsOn). While one of them has not
-- finished it is WAITING, a status claims never read. The outcome of its last dependency makes it
-- PENDING (SCHEDULED while its own run_at is ahead) in the same transaction, whichever write made
-- that dependency SUCCEEDED, FAILED or CANCELLED: a trigger does it, so every path is covered.
--
-- The new status changes the status CHECK, which SQLite cannot change in place: the table is
-- rebuilt (as in 0002), keeping ids and the AUTOINCREMENT counter, with three new columns:
-- depends_on (the ids the job depends on, a JSON array; NULL: none), on_dependency_failure
-- ('cancel' it, or 'run' it anyway) and has_dependents (set once some job depended on this one,
-- so the trigger skips every other row in its WHEN clause).
CREATE TABLE nudge_jobs_next (
  id                    INTEGER PRIMARY KEY AUTOINCREMENT,
  kind                  TEXT    NOT NULL CHECK (length(kind) > 0),
  payload               TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(payload)),
  status                TEXT    NOT NULL DEFAULT 'PENDING'
                        CHECK (status IN ('WAITING', 'SCHEDULED', 'PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED')),
  priority              INTEGER NOT NULL DEFAULT 0,
  run_at                TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
                        CHECK (run_at GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9]Z'),
  attempts              INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  max_attempts          INTEGER NOT NULL DEFAULT 5 CHECK (max_attempts >= 1),
  version               INTEGER NOT NULL DEFAULT 0,
  claimed_by            TEXT,
  lease_expires_at      TEXT,
  last_error            TEXT,
  result                TEXT CHECK (result IS NULL OR json_valid(result)),
  created_at            TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  started_at            TEXT,
  finished_at           TEXT,
  idempotency_key       TEXT,
  queue                 TEXT    NOT NULL DEFAULT 'default' CHECK (length(queue) > 0),
  progress              TEXT CHECK (progress IS NULL OR json_valid(progress)),
  errors                TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(errors)),
  depends_on            TEXT CHECK (depends_on IS NULL OR json_valid(depends_on)),
  on_dependency_failure TEXT CHECK (on_dependency_failure IN ('cancel', 'run')),
  has_dependents        INTEGER NOT NULL DEFAULT 0 CHECK (has_dependents IN (0, 1))
) STRICT;

INSERT INTO nudge_jobs_next (
  id, kind, payload, status, priority, run_at, attempts, max_attempts, version, claimed_by,
  lease_expires_at, last_error, result, created_at, started_at, finished_at, idempotency_key, queue,
  progress, errors)
SELECT
  id, kind, payload, status, priority, run_at, attempts, max_attempts, version, claimed_by,
  lease_expires_at, last_error, result, created_at, started_at, finished_at, idempotency_key, queue,
  progress, errors
  FROM nudge_jobs;
-- The copy set the new counter to the highest id kept; ids of deleted rows are never reused.
INSERT INTO sqlite_sequence (name, seq)
  SELECT 'nudge_jobs_next', 0 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'nudge_jobs_next');
UPDATE sqlite_sequence
   SET seq = max(seq, coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'nudge_jobs'), 0))
 WHERE name = 'nudge_jobs_next';
DROP TABLE nudge_jobs;
ALTER TABLE nudge_jobs_next RENAME TO nudge_jobs;

-- The indexes and the trigger the old table had, as earlier migrations made them.
CREATE INDEX nudge_jobs_claimable ON nudge_jobs (priority, run_at, id) WHERE status = 'PENDING';
CREATE INDEX nudge_jobs_finished ON nudge_jobs (status, kind, finished_at) WHERE finished_at IS NOT NULL;
CREATE UNIQUE INDEX nudge_jobs_idempotency ON nudge_jobs (kind, idempotency_key)
  WHERE idempotency_key IS NOT NULL;
CREATE INDEX nudge_jobs_leases ON nudge_jobs (lease_expires_at) WHERE lease_expires_at IS NOT NULL;
CREATE INDEX nudge_jobs_queue_claimable ON nudge_jobs (queue, priority, run_at, id) WHERE status = 'PENDING';
CREATE INDEX nudge_jobs_scheduled ON nudge_jobs (run_at) WHERE status = 'SCHEDULED';
CREATE TRIGGER nudge_jobs_schedule_future
  AFTER INSERT ON nudge_jobs
  FOR EACH ROW WHEN NEW.status = 'PENDING' AND NEW.run_at > strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
BEGIN
  UPDATE nudge_jobs SET status = 'SCHEDULED' WHERE id = NEW.id;
END;

-- One row per (waiting job, dependency), kept only while the job is WAITING: the reverse lookup
-- from a dependency that finished to the jobs that wait for it. No foreign keys: retention may
-- delete a finished dependency, which then counts as finished.
CREATE TABLE nudge_job_dependencies (
  job_id        INTEGER NOT NULL,
  depends_on_id INTEGER NOT NULL,
  PRIMARY KEY (depends_on_id, job_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX nudge_job_dependencies_job ON nudge_job_dependencies (job_id);

-- Runs when a row becomes SUCCEEDED, FAILED or CANCELLED and either has dependents or was itself
-- WAITING. SQLite has one writer at a time, so the read of the other dependencies cannot race. A
-- cancel cascades down a chain through this trigger firing for each cancelled job, which needs
-- `PRAGMA recursive_triggers = ON` (every connection the store opens sets it).
CREATE TRIGGER nudge_jobs_dependency_outcome
  AFTER UPDATE OF status ON nudge_jobs
  FOR EACH ROW
  WHEN NEW.status IN ('SUCCEEDED', 'FAILED', 'CANCELLED') AND OLD.status <> NEW.status
       AND (NEW.has_dependents OR OLD.status = 'WAITING')
BEGIN
  DELETE FROM nudge_job_dependencies WHERE OLD.status = 'WAITING' AND job_id = NEW.id;
  UPDATE nudge_jobs
     SET status = 'CANCELLED', finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'),
         last_error = 'dependency ' || NEW.id || ' ended ' || NEW.status
   WHERE NEW.has_dependents AND NEW.status <> 'SUCCEEDED'
     AND id IN (SELECT job_id FROM nudge_job_dependencies WHERE depends_on_id = NEW.id)
     AND status = 'WAITING' AND on_dependency_failure = 'cancel';
  UPDATE nudge_jobs
     SET status = CASE WHEN run_at > strftime('%Y-%m-%dT%H:%M:%fZ', 'now') THEN 'SCHEDULED' ELSE 'PENDING' END
   WHERE NEW.has_dependents
     AND id IN (SELECT job_id FROM nudge_job_dependencies WHERE depends_on_id = NEW.id)
     AND status = 'WAITING'
     AND NOT EXISTS (
           SELECT 1 FROM nudge_job_dependencies AS e JOIN nudge_jobs AS d ON d.id = e.depends_on_id
            WHERE e.job_id = nudge_jobs.id AND d.status NOT IN ('SUCCEEDED', 'FAILED', 'CANCELLED'));
  DELETE FROM nudge_job_dependencies
   WHERE NEW.has_dependents
     AND job_id IN (SELECT e.job_id FROM nudge_job_dependencies AS e JOIN nudge_jobs AS j ON j.id = e.job_id
                     WHERE e.depends_on_id = NEW.id AND j.status <> 'WAITING');
END;

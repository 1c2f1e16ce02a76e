-- Jobs that are not due yet (a future run_at, or a retry waiting out its backoff) get their own
-- status, SCHEDULED, so the claim index holds only runnable work: a claim never reads a row that
-- is not due, however many are scheduled. The scheduler promotes SCHEDULED rows to PENDING once
-- run_at has passed, by the database clock.
--
-- SQLite cannot change a CHECK constraint in place: the table is rebuilt (the documented
-- "make other kinds of table schema changes" procedure), keeping ids and the AUTOINCREMENT counter.
CREATE TABLE nudge_jobs_next (
  id               INTEGER PRIMARY KEY AUTOINCREMENT,
  kind             TEXT    NOT NULL CHECK (length(kind) > 0),
  payload          TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(payload)),
  status           TEXT    NOT NULL DEFAULT 'PENDING'
                   CHECK (status IN ('SCHEDULED', 'PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED')),
  priority         INTEGER NOT NULL DEFAULT 0,
  run_at           TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
                   CHECK (run_at GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9]Z'),
  attempts         INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  max_attempts     INTEGER NOT NULL DEFAULT 5 CHECK (max_attempts >= 1),
  version          INTEGER NOT NULL DEFAULT 0,
  claimed_by       TEXT,
  lease_expires_at TEXT,
  last_error       TEXT,
  result           TEXT CHECK (result IS NULL OR json_valid(result)),
  created_at       TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  started_at       TEXT,
  finished_at      TEXT
) STRICT;

INSERT INTO nudge_jobs_next SELECT * FROM nudge_jobs;
-- The copy set the new counter to the highest id kept; ids of deleted rows are never reused.
INSERT INTO sqlite_sequence (name, seq)
  SELECT 'nudge_jobs_next', 0 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'nudge_jobs_next');
UPDATE sqlite_sequence
   SET seq = max(seq, coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'nudge_jobs'), 0))
 WHERE name = 'nudge_jobs_next';
DROP TABLE nudge_jobs;
ALTER TABLE nudge_jobs_next RENAME TO nudge_jobs;

UPDATE nudge_jobs SET status = 'SCHEDULED'
 WHERE status = 'PENDING' AND run_at > strftime('%Y-%m-%dT%H:%M:%fZ', 'now');

-- Claim order; only pending rows, so the index holds runnable work and nothing else.
CREATE INDEX nudge_jobs_claimable ON nudge_jobs (priority, run_at, id) WHERE status = 'PENDING';

-- The sweep's lookup of expired leases; only RUNNING rows have a lease. (The predicate is not on
-- status so that batch writes conditioned on status = 'RUNNING' look rows up by id instead.)
CREATE INDEX nudge_jobs_leases ON nudge_jobs (lease_expires_at) WHERE lease_expires_at IS NOT NULL;

-- The scheduler's lookup of due rows, and of the next one to come due.
CREATE INDEX nudge_jobs_scheduled ON nudge_jobs (run_at) WHERE status = 'SCHEDULED';

-- A producer's plain INSERT keeps working: a PENDING row whose run_at is in the future is stored
-- as SCHEDULED (SQLite triggers cannot change NEW, so the row is updated right after).
CREATE TRIGGER nudge_jobs_schedule_future
  AFTER INSERT ON nudge_jobs
  FOR EACH ROW WHEN NEW.status = 'PENDING' AND NEW.run_at > strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
BEGIN
  UPDATE nudge_jobs SET status = 'SCHEDULED' WHERE id = NEW.id;
END;

-- Service instances and the kinds they have handlers for (a JSON array of strings), refreshed on
-- every heartbeat. A PENDING job whose kind no live instance has is failed after a grace period
-- instead of waiting forever.
CREATE TABLE nudge_instances (
  id           TEXT    PRIMARY KEY,
  host         TEXT    NOT NULL,
  pid          INTEGER NOT NULL,
  kinds        TEXT    NOT NULL CHECK (json_valid(kinds)),
  started_at   TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  last_seen_at TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;

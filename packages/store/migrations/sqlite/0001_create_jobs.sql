-- The jobs table. A plain INSERT of (kind, payload) makes a valid, runnable PENDING job:
-- every other column has a default, and run_at comes from the database clock.
-- Times are ISO-8601 UTC text with milliseconds, so they sort and compare as text.
CREATE TABLE nudge_jobs (
  id               INTEGER PRIMARY KEY AUTOINCREMENT,
  kind             TEXT    NOT NULL CHECK (length(kind) > 0),
  payload          TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(payload)),
  status           TEXT    NOT NULL DEFAULT 'PENDING'
                   CHECK (status IN ('PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED')),
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

-- Claim order; only pending rows, so the index stays small however many jobs have finished.
CREATE INDEX nudge_jobs_claimable ON nudge_jobs (priority, run_at, id) WHERE status = 'PENDING';

-- The recovery sweep looks up expired leases among running rows only.
CREATE INDEX nudge_jobs_leases ON nudge_jobs (lease_expires_at) WHERE status = 'RUNNING';

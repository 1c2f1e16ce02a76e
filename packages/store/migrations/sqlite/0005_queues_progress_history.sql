-- Named queues: every job belongs to one (default 'default'). An instance serves a set of queues,
-- some with a cap on how many of their jobs it runs at once; a paused queue is claimed by nobody.
ALTER TABLE nudge_jobs ADD COLUMN queue TEXT NOT NULL DEFAULT 'default' CHECK (length(queue) > 0);

-- A capped queue is claimed on its own: this index finds its next jobs in claim order without
-- reading the other queues' pending rows. (Uncapped queues keep using nudge_jobs_claimable.)
CREATE INDEX nudge_jobs_queue_claimable ON nudge_jobs (queue, priority, run_at, id) WHERE status = 'PENDING';

-- Queues an operator paused (or resumed); a queue without a row is running. Claims read this
-- small table on every pass, so every instance obeys a pause within one poll interval.
CREATE TABLE nudge_queues (
  name       TEXT    PRIMARY KEY CHECK (length(name) > 0),
  paused     INTEGER NOT NULL DEFAULT 0 CHECK (paused IN (0, 1)),
  updated_at TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;

-- The latest progress a handler reported (a number 0-100 and/or a small JSON object).
ALTER TABLE nudge_jobs ADD COLUMN progress TEXT CHECK (progress IS NULL OR json_valid(progress));

-- The errors of the latest failed attempts, oldest first, at most 10:
-- [{"attempt": 1, "at": "…", "error": "…", "instance": "…"}, …]
ALTER TABLE nudge_jobs ADD COLUMN errors TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(errors));

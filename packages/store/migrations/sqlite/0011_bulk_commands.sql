-- Bulk cancel walks the unfinished jobs by id, a page at a time (POST /jobs/cancel). Only
-- unfinished rows are indexed (finished rows have a finished_at), so the index stays as small as
-- the backlog however many jobs have finished, and a page reads only the rows it may cancel.
CREATE INDEX nudge_jobs_unfinished ON nudge_jobs (id) WHERE finished_at IS NULL;

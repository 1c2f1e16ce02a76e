-- Retention deletes finished jobs per (status, kind), oldest first. With this index each delete
-- batch reads exactly the rows it deletes, and the kinds present per status are found by a loose
-- index scan instead of a table scan. Unfinished rows have no finished_at and are not indexed.
CREATE INDEX nudge_jobs_finished ON nudge_jobs (status, kind, finished_at) WHERE finished_at IS NOT NULL;

-- A job's depends_on (its dependencies' ids, a JSON array) is kept out of line without
-- compression once it passes the TOAST threshold (about 2 kB: some 200 ids). Compressing it
-- (pglz, the default) was most of an enqueue of jobs with many dependencies: inserting 1,000 jobs
-- of 1,000 dependencies each took 1.8 to 2.6 s of execution, 0.09 to 0.15 s without. The lists
-- are small next to the edges each of their ids has in nudge_job_dependencies. Existing values
-- keep their storage until rewritten.
ALTER TABLE nudge_jobs ALTER COLUMN depends_on SET STORAGE EXTERNAL;

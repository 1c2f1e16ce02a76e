-- Nothing to do on SQLite: PostgreSQL's 0025 keeps its dependency release away from jobs WAITING
-- for a signal. SQLite's release finds a job's waiting dependents through nudge_job_dependencies,
-- whose rows for a job are deleted when it is released: a job that ran, and then waits for
-- a signal, has none left for a dependency that finishes again.
SELECT 1;

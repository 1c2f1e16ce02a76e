-- An optional idempotency key per job, unique per kind while the row is kept: enqueueing a job
-- whose kind and key exist returns the existing job and writes nothing.
ALTER TABLE nudge_jobs ADD COLUMN idempotency_key TEXT;
CREATE UNIQUE INDEX nudge_jobs_idempotency ON nudge_jobs (kind, idempotency_key)
  WHERE idempotency_key IS NOT NULL;

-- The API key that enqueued a job: its id (a fingerprint of the key, never the key itself), or
-- NULL for a job enqueued without one (the SDK, a handler's follow-up, a cron tick, an API
-- without keys, and every job from before this migration). A debounce by a key that is not an
-- admin's replaces only a job this column gives to that key. Nullable, no default: adding it
-- rewrites no row.
ALTER TABLE nudge_jobs ADD COLUMN enqueued_by TEXT;

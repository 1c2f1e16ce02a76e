-- Wake listening instances when an UPDATE makes a job runnable, as an INSERT of a PENDING job does
-- (0003): a retry (one or bulk), a release, a failure retried at once, the sweep's requeue, the
-- promotion of a due scheduled job (one a producer inserted with plain SQL included), and a
-- change by hand. Without it the other instances waited for their idle poll (30 s by default).
-- A row trigger with a WHEN clause costs the other updates (claims, heartbeats, completions)
-- nothing but the check; PostgreSQL folds identical notifications of a transaction into one and
-- delivers them at commit. Polling remains the guarantee: a notification is only a hint.
CREATE FUNCTION nudge_jobs_notify_runnable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('nudge_jobs', '');
  RETURN NULL;
END
$$;
CREATE TRIGGER nudge_jobs_notify_runnable
  AFTER UPDATE OF status ON nudge_jobs
  FOR EACH ROW
  WHEN (NEW.status = 'PENDING' AND OLD.status <> 'PENDING')
  EXECUTE FUNCTION nudge_jobs_notify_runnable();

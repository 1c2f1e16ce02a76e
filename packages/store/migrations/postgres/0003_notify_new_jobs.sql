-- Wake listening instances when runnable jobs are inserted, so a producer's plain INSERT needs no
-- POST /nudge. One notification per statement that inserts PENDING rows (a job inserted already
-- claimed, or scheduled for later, wakes nobody); PostgreSQL delivers notifications at commit and
-- folds identical ones of a transaction into one. Polling remains the guarantee: a notification
-- is only a hint. To turn it off: ALTER TABLE nudge_jobs DISABLE TRIGGER nudge_jobs_notify.
CREATE FUNCTION nudge_jobs_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM inserted WHERE status = 'PENDING') THEN
    PERFORM pg_notify('nudge_jobs', '');
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER nudge_jobs_notify
  AFTER INSERT ON nudge_jobs
  REFERENCING NEW TABLE AS inserted
  FOR EACH STATEMENT
  EXECUTE FUNCTION nudge_jobs_notify();

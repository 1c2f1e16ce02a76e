import { rawQuery } from './raw-sql.js';
import type { TestDatabase } from './test-database.js';

/** Marks jobs whose writes the database refuses from now on. */
export interface PoisonRows {
  /** From now on, every refused write of job `id` fails with the database error `poisoned job <id>`. */
  poison(id: number): Promise<void>;
}

// A change of status, progress or a heartbeat (the lease extended while the row's last_error
// stays) of a poisoned job is refused, and so is its deletion. A note that only sets last_error,
// or sets it and pushes the lease or run_at back, goes through: what the store writes on a job
// whose write it isolated.
const REFUSED_UPDATE = `OLD.status <> NEW.status
  OR (OLD.progress IS NULL) <> (NEW.progress IS NULL) OR OLD.progress <> NEW.progress
  OR (NEW.lease_expires_at > OLD.lease_expires_at AND OLD.last_error IS NOT DISTINCT FROM NEW.last_error)`;

/**
 * Installs triggers on `nudge_jobs` that raise a real database error (`RAISE(ABORT)` in SQLite,
 * `RAISE EXCEPTION` in PostgreSQL) for the writes of marked jobs, beside a table of marked ids:
 * one bad row for the batch-write tests. Test databases only: it adds a table and triggers.
 */
export async function installPoisonRows(db: TestDatabase): Promise<PoisonRows> {
  if (db.dialect === 'sqlite') {
    await rawQuery(db, `CREATE TABLE nudge_test_poison (job_id INTEGER PRIMARY KEY)`);
    const sqliteRefused = REFUSED_UPDATE.replace('IS NOT DISTINCT FROM', 'IS');
    await rawQuery(
      db,
      `CREATE TRIGGER nudge_test_poison_update BEFORE UPDATE ON nudge_jobs
         WHEN OLD.id IN (SELECT job_id FROM nudge_test_poison) AND (${sqliteRefused})
       BEGIN SELECT RAISE(ABORT, 'poisoned job'); END`,
    );
    await rawQuery(
      db,
      `CREATE TRIGGER nudge_test_poison_delete BEFORE DELETE ON nudge_jobs
         WHEN OLD.id IN (SELECT job_id FROM nudge_test_poison)
       BEGIN SELECT RAISE(ABORT, 'poisoned job'); END`,
    );
  } else {
    await rawQuery(db, `CREATE TABLE nudge_test_poison (job_id bigint PRIMARY KEY)`);
    await rawQuery(
      db,
      `CREATE FUNCTION nudge_test_poison() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF EXISTS (SELECT 1 FROM nudge_test_poison WHERE job_id = OLD.id)
            AND (TG_OP = 'DELETE' OR ${REFUSED_UPDATE}) THEN
           RAISE EXCEPTION 'poisoned job %', OLD.id;
         END IF;
         RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
       END $$`,
    );
    await rawQuery(
      db,
      `CREATE TRIGGER nudge_test_poison BEFORE UPDATE OR DELETE ON nudge_jobs
         FOR EACH ROW EXECUTE FUNCTION nudge_test_poison()`,
    );
  }
  return {
    poison: async (id) => {
      await rawQuery(db, `INSERT INTO nudge_test_poison (job_id) VALUES (?)`, [id]);
    },
  };
}

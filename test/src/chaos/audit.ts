import type { TestDatabase } from '@nudge/test-databases';
import { rawQuery } from '@nudge/test-databases';

/** One change of a job's status or version, as the audit trigger recorded it. */
export interface AuditRow {
  readonly seq: number;
  readonly jobId: number;
  readonly oldStatus: string;
  readonly newStatus: string;
  readonly oldVersion: number;
  readonly newVersion: number;
  /**
   * When the change happened by the database clock, in epoch ms, as a claim counts its rate
   * windows: for a claim (to `RUNNING`) the job's `started_at` (on PostgreSQL a claim of limited
   * queues dates its starts by the time it took their locks, within its statement); otherwise
   * when the writing statement began (PostgreSQL `statement_timestamp()`, SQLite's `'now'`,
   * which is fixed for a statement).
   */
  readonly at: number;
}

/**
 * Installs an audit table and a trigger on `nudge_jobs` that records, in the writing
 * transaction, every update that changes a job's status or version: what committed, in commit
 * order per row. Test databases only.
 */
export async function installAudit(db: TestDatabase): Promise<void> {
  if (db.dialect === 'sqlite') {
    await rawQuery(
      db,
      `CREATE TABLE nudge_chaos_audit (seq INTEGER PRIMARY KEY AUTOINCREMENT, job_id INTEGER NOT NULL,
         old_status TEXT NOT NULL, new_status TEXT NOT NULL, old_version INTEGER NOT NULL, new_version INTEGER NOT NULL,
         at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))`,
    );
    await rawQuery(
      db,
      `CREATE TRIGGER nudge_chaos_audit AFTER UPDATE ON nudge_jobs
         WHEN OLD.status IS NOT NEW.status OR OLD.version IS NOT NEW.version
       BEGIN
         INSERT INTO nudge_chaos_audit (job_id, old_status, new_status, old_version, new_version)
         VALUES (NEW.id, OLD.status, NEW.status, OLD.version, NEW.version);
       END`,
    );
    return;
  }
  await rawQuery(
    db,
    `CREATE TABLE nudge_chaos_audit (seq bigserial PRIMARY KEY, job_id bigint NOT NULL,
       old_status text NOT NULL, new_status text NOT NULL, old_version integer NOT NULL, new_version integer NOT NULL,
       at timestamptz NOT NULL DEFAULT statement_timestamp())`,
  );
  await rawQuery(
    db,
    `CREATE FUNCTION nudge_chaos_audit() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       INSERT INTO nudge_chaos_audit (job_id, old_status, new_status, old_version, new_version, at)
       VALUES (NEW.id, OLD.status, NEW.status, OLD.version, NEW.version,
               CASE WHEN NEW.status = 'RUNNING' AND NEW.started_at IS NOT NULL THEN NEW.started_at
                    ELSE statement_timestamp() END);
       RETURN NULL;
     END $$`,
  );
  await rawQuery(
    db,
    `CREATE TRIGGER nudge_chaos_audit AFTER UPDATE ON nudge_jobs FOR EACH ROW
       WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.version IS DISTINCT FROM NEW.version)
       EXECUTE FUNCTION nudge_chaos_audit()`,
  );
}

/** Every audited change, in order. */
export async function readAudit(db: TestDatabase): Promise<AuditRow[]> {
  const rows = await rawQuery<Record<string, unknown>>(
    db,
    `SELECT seq, job_id, old_status, new_status, old_version, new_version, at FROM nudge_chaos_audit ORDER BY seq`,
  );
  return rows.map((row) => ({
    seq: Number(row.seq),
    jobId: Number(row.job_id),
    oldStatus: String(row.old_status),
    newStatus: String(row.new_status),
    oldVersion: Number(row.old_version),
    newVersion: Number(row.new_version),
    at: row.at instanceof Date ? row.at.getTime() : Date.parse(String(row.at)),
  }));
}

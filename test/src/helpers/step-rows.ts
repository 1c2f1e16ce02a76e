// Step and signal rows written with plain SQL, as a test's setup: what a handler's ctx.step,
// ctx.sleep and ctx.waitForSignal would have left, without running one.
import { rawQuery, type TestDatabase } from './databases.js';

/** The database's now, as each dialect stores times. */
const nowSql = (db: TestDatabase): string =>
  db.dialect === 'sqlite' ? "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')" : 'now()';

/** The dialect's true, for `has_steps`. */
const trueSql = (db: TestDatabase): string => (db.dialect === 'sqlite' ? '1' : 'true');

/**
 * Records finished steps `names` for job `jobId`, in that order (`position` 1, 2, …, after any
 * it has), each `SUCCEEDED` with its index as result, and marks the job `has_steps`.
 */
export async function addSteps(db: TestDatabase, jobId: number, names: readonly string[]): Promise<void> {
  const [row] = await rawQuery<{ n: number | string }>(
    db,
    'SELECT count(*) AS n FROM nudge_job_steps WHERE job_id = ?',
    [jobId],
  );
  const first = Number(row?.n ?? 0) + 1;
  for (const [index, name] of names.entries()) {
    await rawQuery(
      db,
      `INSERT INTO nudge_job_steps (job_id, name, position, type, status, attempt, result, started_at, ended_at)
       VALUES (?, ?, ?, 'step', 'SUCCEEDED', 1, ?, ${nowSql(db)}, ${nowSql(db)})`,
      [jobId, name, first + index, String(index)],
    );
  }
  await rawQuery(db, `UPDATE nudge_jobs SET has_steps = ${trueSql(db)} WHERE id = ?`, [jobId]);
}

/** Job `jobId`'s step names, by `position`. */
export async function stepNames(db: TestDatabase, jobId: number): Promise<string[]> {
  const rows = await rawQuery<{ name: string }>(
    db,
    'SELECT name FROM nudge_job_steps WHERE job_id = ? ORDER BY position',
    [jobId],
  );
  return rows.map((row) => row.name);
}

/**
 * Sends signal `name` to job `jobId` with a plain SQL insert (its trigger marks the job
 * `has_steps`); the job must not have finished.
 */
export async function addSignal(db: TestDatabase, jobId: number, name: string): Promise<void> {
  await rawQuery(db, `INSERT INTO nudge_job_signals (job_id, name, payload) VALUES (?, ?, '1')`, [
    jobId,
    name,
  ]);
}

/** How many signals job `jobId` has. */
export async function signalCount(db: TestDatabase, jobId: number): Promise<number> {
  const [row] = await rawQuery<{ n: number | string }>(
    db,
    'SELECT count(*) AS n FROM nudge_job_signals WHERE job_id = ?',
    [jobId],
  );
  return Number(row?.n ?? 0);
}

/** Job `jobId`'s `wait_signal`. */
export async function waitSignalOf(db: TestDatabase, jobId: number): Promise<string | null> {
  const [row] = await rawQuery<{ wait_signal: string | null }>(
    db,
    'SELECT wait_signal FROM nudge_jobs WHERE id = ?',
    [jobId],
  );
  return row?.wait_signal ?? null;
}

/**
 * Puts a `PENDING` job where a `ctx.waitForSignal(name)` without a deadline leaves it: `WAITING`
 * with `wait_signal` set and `run_at` at the far end, and a `WAITING` signal step of that name.
 */
export async function waitForSignal(db: TestDatabase, jobId: number, name: string): Promise<void> {
  const never = db.dialect === 'sqlite' ? "'9999-12-31T23:59:59.999Z'" : "'infinity'";
  const [row] = await rawQuery<{ n: number | string }>(
    db,
    'SELECT count(*) AS n FROM nudge_job_steps WHERE job_id = ?',
    [jobId],
  );
  await rawQuery(
    db,
    `INSERT INTO nudge_job_steps (job_id, name, position, type, status, attempt, started_at)
     VALUES (?, ?, ?, 'signal', 'WAITING', 1, ${nowSql(db)})`,
    [jobId, name, Number(row?.n ?? 0) + 1],
  );
  await rawQuery(
    db,
    `UPDATE nudge_jobs SET status = 'WAITING', wait_signal = ?, run_at = ${never}, has_steps = ${trueSql(db)}
      WHERE id = ?`,
    [name, jobId],
  );
}

import { rawQuery } from './raw-sql.js';
import type { TestDatabase } from './test-database.js';

/** A write the fault triggers can make fail: a claim (a row turning RUNNING) or a completion. */
export type FaultPoint = 'claim' | 'complete';

/** Arms and disarms the fault triggers of a database. */
export interface Faults {
  /**
   * From now on, every write at `point` fails with an error of the database, not of the row
   * (which the store would isolate instead): on PostgreSQL `injected fault: POINT` with SQLSTATE
   * 58000 (system error); on SQLite `integer overflow`, since a `RAISE` there is always a
   * constraint error.
   */
  arm(point: FaultPoint): Promise<void>;
  /** Lets writes at `point` through again. */
  disarm(point: FaultPoint): Promise<void>;
}

/** When each point's trigger fires: the row change it stands for. */
const WHEN: Record<FaultPoint, string> = {
  claim: `NEW.status = 'RUNNING' AND OLD.status <> 'RUNNING'`,
  complete: `NEW.status = 'SUCCEEDED' AND OLD.status = 'RUNNING'`,
};

/**
 * Installs triggers on `nudge_jobs` that raise a real database error for the writes of an armed
 * point (an integer overflow in SQLite, a `RAISE EXCEPTION` in PostgreSQL), with a table of armed
 * points, so tests see the driver's own error travel through the store. Nothing is armed at
 * first. Test databases only: it adds a table and triggers to the schema.
 */
export async function installFaults(db: TestDatabase): Promise<Faults> {
  const points = Object.keys(WHEN) as FaultPoint[];
  if (db.dialect === 'sqlite') {
    await rawQuery(db, `CREATE TABLE nudge_test_faults (point TEXT PRIMARY KEY, armed INTEGER NOT NULL)`);
    for (const point of points) {
      await rawQuery(db, `INSERT INTO nudge_test_faults (point, armed) VALUES (?, 0)`, [point]);
      await rawQuery(
        db,
        `CREATE TRIGGER nudge_test_fault_${point} BEFORE UPDATE OF status ON nudge_jobs
           WHEN ${WHEN[point]} AND (SELECT armed FROM nudge_test_faults WHERE point = '${point}') = 1
         BEGIN SELECT abs(-9223372036854775807 - 1); END`,
      );
    }
  } else {
    await rawQuery(db, `CREATE TABLE nudge_test_faults (point text PRIMARY KEY, armed boolean NOT NULL)`);
    await rawQuery(
      db,
      `CREATE FUNCTION nudge_test_fault() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF (SELECT armed FROM nudge_test_faults WHERE point = TG_ARGV[0]) THEN
           RAISE EXCEPTION 'injected fault: %', TG_ARGV[0] USING ERRCODE = '58000';
         END IF;
         RETURN NEW;
       END $$`,
    );
    for (const point of points) {
      await rawQuery(db, `INSERT INTO nudge_test_faults (point, armed) VALUES (?, false)`, [point]);
      await rawQuery(
        db,
        `CREATE TRIGGER nudge_test_fault_${point} BEFORE UPDATE ON nudge_jobs FOR EACH ROW
           WHEN (${WHEN[point]}) EXECUTE FUNCTION nudge_test_fault('${point}')`,
      );
    }
  }
  const set = (point: FaultPoint, armed: boolean): Promise<unknown> =>
    rawQuery(db, `UPDATE nudge_test_faults SET armed = ? WHERE point = ?`, [
      db.dialect === 'sqlite' ? Number(armed) : armed,
      point,
    ]);
  return {
    arm: async (point) => void (await set(point, true)),
    disarm: async (point) => void (await set(point, false)),
  };
}

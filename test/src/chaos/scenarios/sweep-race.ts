import { Worker } from 'node:worker_threads';
import type { Dialect, JobLease } from '@nudge/store';
import {
  DIALECTS,
  createMigratedDatabase,
  openStore,
  rawQuery,
  type TestDatabase,
} from '@nudge/test-databases';
import { installAudit, readAudit } from '../audit.js';
import type { ChaosSize, Scenario, ScenarioResult } from '../scenario.js';
import type { RaceThreadData } from '../race-thread.js';

const THREAD = new URL('../race-thread.js', import.meta.url);
const JOBS: Record<ChaosSize, number> = { test: 200, ci: 1_000, full: 5_000 };
const ROUNDS: Record<ChaosSize, number> = { test: 3, ci: 10, full: 20 };

/** `url` tagged with an `application_name` on PostgreSQL (the hold trigger tells the racers apart by it). */
function tagged(db: TestDatabase, app: string): string {
  if (db.dialect === 'sqlite') return db.url;
  const url = new URL(db.url);
  url.searchParams.set('application_name', app);
  return url.toString();
}

/** Runs a sweeper and a completer in threads of their own; @returns what each settled. */
async function race(
  db: TestDatabase,
  leases: readonly JobLease[],
  delays: { sweep: number; complete: number },
  chunk: number,
): Promise<{ swept: number; completed: number }> {
  const start = new Int32Array(new SharedArrayBuffer(4));
  let ready = 0;
  const run = (role: RaceThreadData['role']) =>
    new Promise<number>((resolve, reject) => {
      const data: RaceThreadData = {
        url: tagged(db, `chaos-${role}`),
        role,
        leases,
        delayMs: delays[role],
        chunk,
        start,
      };
      const worker = new Worker(THREAD, { workerData: data });
      worker.on('message', (message: 'ready' | number) => {
        if (message !== 'ready') return resolve(message);
        ready += 1;
        if (ready === 2) {
          Atomics.store(start, 0, 1);
          Atomics.notify(start, 0);
        }
      });
      worker.on('error', reject);
    });
  const [swept, completed] = await Promise.all([run('sweep'), run('complete')]);
  return { swept, completed };
}

/**
 * Installs statement triggers that hold the racer named in `nudge_chaos_hold` for 1 s: the sweep
 * before its UPDATE (it has found and locked the expired rows, and changed none yet), a
 * completion after its UPDATE (its rows are locked and changed, not yet committed).
 */
async function installHold(db: TestDatabase): Promise<void> {
  await rawQuery(db, `CREATE TABLE nudge_chaos_hold (app text)`);
  await rawQuery(db, `INSERT INTO nudge_chaos_hold VALUES (NULL)`);
  await rawQuery(
    db,
    `CREATE FUNCTION nudge_chaos_hold() RETURNS trigger LANGUAGE plpgsql AS $$
     DECLARE app text := current_setting('application_name');
     BEGIN
       IF app = (SELECT h.app FROM nudge_chaos_hold h)
          AND ((app = 'chaos-sweep' AND TG_WHEN = 'BEFORE') OR (app = 'chaos-complete' AND TG_WHEN = 'AFTER')) THEN
         PERFORM pg_sleep(1);
       END IF;
       RETURN NULL;
     END $$`,
  );
  for (const when of ['BEFORE', 'AFTER']) {
    await rawQuery(
      db,
      `CREATE TRIGGER nudge_chaos_hold_${when.toLowerCase()} ${when} UPDATE ON nudge_jobs
         FOR EACH STATEMENT EXECUTE FUNCTION nudge_chaos_hold()`,
    );
  }
}

/**
 * Scenario 5: the sweep and a completion race for jobs whose lease just expired. On PostgreSQL
 * the sweep is held (1 s) after it found and locked the expired rows, and a completion arrives in
 * that gap: it waits and is fenced out (the sweep won); then the completion is held with its rows
 * locked and the sweep arrives: it skips them and the completion stands. On both dialects,
 * rounds of both at full speed. Always: each job leaves RUNNING exactly once, by one or the other.
 */
export const sweepRace: Scenario = {
  id: 5,
  title: 'sweep vs completion race',
  dialects: DIALECTS,
  async run(dialect: Dialect, size: ChaosSize): Promise<ScenarioResult> {
    const db = await createMigratedDatabase(dialect);
    const store = await openStore(db);
    try {
      await installAudit(db);
      if (dialect === 'postgres') await installHold(db);
      const count = JOBS[size];
      const checks: Record<string, boolean> = {};
      const notes: Record<string, number> = {};
      const accepted: number[] = [];
      let rounds = 0;
      const round = async (
        name: string,
        hold: string | null,
        delays: { sweep: number; complete: number },
        chunk = 25,
      ) => {
        // A kind per round: the jobs the sweep requeued in earlier rounds stay out of this claim.
        const kind = `k${(rounds += 1)}`;
        const jobs = await store.enqueueMany(Array.from({ length: count }, () => ({ kind })));
        accepted.push(...jobs.map((job) => job.id));
        const claimed = await store.claim({
          workerId: 'holder',
          leaseMs: 1,
          groups: [{ kinds: [kind], limit: count }],
        });
        await new Promise((resolve) => setTimeout(resolve, 5));
        if (dialect === 'postgres') await rawQuery(db, `UPDATE nudge_chaos_hold SET app = ?`, [hold]);
        const settled = await race(
          db,
          claimed.map(({ id, version }) => ({ id, version })),
          delays,
          chunk,
        );
        notes[`${name}: swept`] = (notes[`${name}: swept`] ?? 0) + settled.swept;
        notes[`${name}: completed`] = (notes[`${name}: completed`] ?? 0) + settled.completed;
        return settled;
      };
      if (dialect === 'postgres') {
        // The other racer starts halfway into the 1 s hold: the held one's statement has locked its
        // rows by then even on a loaded machine (at 200 ms, 5,000 rows were once still being locked).
        const sweepHeld = await round('sweep held', 'chaos-sweep', { sweep: 0, complete: 500 }, count);
        checks['sweep held, completion in the gap: the sweep wins, the completion is fenced'] =
          sweepHeld.swept === count && sweepHeld.completed === 0;
        const completionHeld = await round(
          'completion held',
          'chaos-complete',
          { sweep: 500, complete: 0 },
          count,
        );
        checks['completion held, sweep in the gap: the completion stands'] =
          completionHeld.completed === count && completionHeld.swept === 0;
      }
      for (let i = 0; i < ROUNDS[size]; i += 1) {
        const settled = await round('full speed', null, { sweep: 0, complete: 0 });
        checks['full speed: every job settled once'] =
          (checks['full speed: every job settled once'] ?? true) &&
          settled.swept + settled.completed === count;
      }
      // Every job leaves RUNNING exactly once (by the audit trail), and nothing is left RUNNING.
      const audit = await readAudit(db);
      const exits = new Map<number, number>();
      for (const change of audit) {
        if (change.oldStatus === 'RUNNING' && change.newStatus !== 'RUNNING') {
          exits.set(change.jobId, (exits.get(change.jobId) ?? 0) + 1);
        }
      }
      const twice = [...exits.values()].filter((n) => n > 1).length;
      const rows = await rawQuery<{ id: number; status: string }>(db, `SELECT id, status FROM nudge_jobs`);
      const present = new Set(rows.map((r) => Number(r.id)));
      const lost =
        accepted.filter((id) => !present.has(id)).length + rows.filter((r) => r.status === 'RUNNING').length;
      return {
        scenario: 5,
        title: sweepRace.title,
        dialect,
        jobs: accepted.length,
        lost,
        fencingViolations: twice,
        duplicatesExplained: 0,
        duplicatesUnexplained: 0,
        worstRecoveryMs: null,
        recoveryBoundMs: null,
        checks: {
          ...checks,
          'every job left RUNNING exactly once': exits.size === accepted.length && twice === 0,
        },
        notes,
      };
    } finally {
      await store.close();
      await db.drop();
    }
  },
};

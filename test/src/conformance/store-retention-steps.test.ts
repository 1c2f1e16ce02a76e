// Retention takes a job's steps and signals with it: the delete trigger of migration 0024 does
// it, for the batch delete and the delete by parts alike. A job without steps pays only the
// trigger's WHEN (OLD.has_steps): the trigger's body never runs for it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { PG_PRUNE_FINISHED } from '@nudge/store/statements';
import {
  createMigratedDatabase,
  installPoisonRows,
  openStore,
  rawQuery,
  type TestDatabase,
} from '../helpers/index.js';
import { describeStore, later, leaseOf, type StoreCase } from './store-fixture.js';
import { addSignal, addSteps, signalCount, stepNames } from '../helpers/step-rows.js';

const HOUR_MS = 3_600_000;

/**
 * Jobs of `kind` that each recorded `steps` (and got a signal, unless `steps` is empty), then
 * succeeded two hours ago. @returns their ids
 */
async function finishedJobs(
  t: StoreCase,
  kind: string,
  count: number,
  steps: readonly string[],
): Promise<number[]> {
  const jobs = await t.store.enqueueMany(Array.from({ length: count }, () => ({ kind })));
  const ids = jobs.map((job) => job.id);
  for (const id of ids) {
    if (steps.length === 0) continue;
    await addSignal(t.db, id, 'approve');
    await addSteps(t.db, id, steps);
  }
  const claimed = await t.claim(count, { kinds: [kind] });
  assert.equal(claimed.length, count);
  const past = later(await t.store.now(), -2 * HOUR_MS);
  await t.store.complete(
    claimed.map((job) => ({ ...leaseOf(job), resultJson: null })),
    past,
  );
  return ids;
}

/** Step and signal rows of `ids`, in all. */
async function rowsOf(t: StoreCase, ids: readonly number[]): Promise<number> {
  let rows = 0;
  for (const id of ids) rows += (await stepNames(t.db, id)).length + (await signalCount(t.db, id));
  return rows;
}

const prune = (t: StoreCase, kind: string, limit = 100) =>
  t.store.pruneFinished({ status: 'SUCCEEDED', kind, olderThanMs: HOUR_MS, limit });

describeStore('retention of steps and signals', (t) => {
  it("deletes a job's steps and signals with it, and leaves those of kept jobs", async () => {
    const pruned = await finishedJobs(t, 'a', 3, ['fetch', 'charge']);
    const kept = await finishedJobs(t, 'b', 1, ['fetch']);
    const running = await t.store.enqueue({ kind: 'a' });
    await addSignal(t.db, running.id, 'approve');
    await addSteps(t.db, running.id, ['fetch']);
    assert.equal(await rowsOf(t, pruned), 9);
    assert.equal(await prune(t, 'a'), 3, 'the count is of jobs: the trigger deletes are not counted');
    for (const id of pruned) assert.equal(await t.store.getJob(id), undefined);
    assert.equal(await rowsOf(t, pruned), 0);
    assert.equal(await rowsOf(t, kept), 2, 'a job of another kind keeps its rows');
    assert.equal(await rowsOf(t, [running.id]), 2, 'an unfinished job keeps its rows');
  });

  it('deletes them on the delete by parts too, after the database refused a batch', async () => {
    const [a, bad, c] = await finishedJobs(t, 'a', 3, ['fetch']);
    assert.ok(a !== undefined && bad !== undefined && c !== undefined);
    const poison = await installPoisonRows(t.db);
    await poison.poison(bad);
    assert.equal(await prune(t, 'a'), 2);
    assert.equal(await rowsOf(t, [a, c]), 0);
    assert.equal(await rowsOf(t, [bad]), 2, 'the refused job stays, with its steps and signal');
  });

  it("skips the trigger's body for a job without steps", async () => {
    const [plain] = await finishedJobs(t, 'a', 1, []);
    assert.ok(plain !== undefined);
    // A step row the job's has_steps does not admit to: only a run of the body would delete it.
    await rawQuery(
      t.db,
      `INSERT INTO nudge_job_steps (job_id, name, position, type, status, attempt, started_at)
       VALUES (?, 'stray', 1, 'step', 'SUCCEEDED', 1, '2020-01-01T00:00:00Z')`,
      [plain],
    );
    assert.equal(await prune(t, 'a'), 1);
    assert.equal(await t.store.getJob(plain), undefined);
    assert.deepEqual(await stepNames(t.db, plain), ['stray'], 'the body did not run');
  });
});

describe('retention of jobs without steps runs no step trigger: postgres', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createMigratedDatabase('postgres');
    await (await openStore(db)).close();
    // 200 old jobs without steps, then 5 with them: the trigger's calls count the latter only.
    await rawQuery(
      db,
      `INSERT INTO nudge_jobs (kind, status, attempts, finished_at, has_steps)
       SELECT CASE WHEN n <= 200 THEN 'plain' ELSE 'stepped' END, 'SUCCEEDED', 1,
              now() - interval '2 days' - n * interval '1 second', n > 200
         FROM generate_series(1, 205) AS n`,
    );
    await rawQuery(
      db,
      `INSERT INTO nudge_job_steps (job_id, name, position, type, status, attempt, started_at)
       SELECT id, 'fetch', 1, 'step', 'SUCCEEDED', 1, now() FROM nudge_jobs WHERE kind = 'stepped'`,
    );
    await rawQuery(db, 'ANALYZE nudge_jobs');
  });
  after(async () => db.drop());

  /** Calls of the step trigger in the EXPLAIN ANALYZE of the prune of `kind` (rolled back). */
  async function triggerCalls(kind: string): Promise<{ jobs: number; calls: number }> {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{
        'QUERY PLAN': [{ Triggers?: { 'Trigger Name': string; Calls: number }[] }];
      }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${PG_PRUNE_FINISHED}`, ['SUCCEEDED', kind, 86_400_000, null, 1000]);
      await client.query('ROLLBACK');
      const explained = rows[0]?.['QUERY PLAN'][0];
      assert.ok(explained);
      // The rows the rolled-back delete took: every job of the kind.
      const jobs = await client.query<{ n: string }>(
        "SELECT count(*) AS n FROM nudge_jobs WHERE kind = $1 AND status = 'SUCCEEDED'",
        [kind],
      );
      const trigger = explained.Triggers?.find((row) => row['Trigger Name'] === 'nudge_jobs_steps_deleted');
      return { jobs: Number(jobs.rows[0]?.n), calls: trigger?.Calls ?? 0 };
    } finally {
      await client.end();
    }
  }

  it('the delete of 200 jobs without steps calls the trigger 0 times; of 5 with steps, 5 times', async () => {
    assert.deepEqual(await triggerCalls('plain'), { jobs: 200, calls: 0 });
    assert.deepEqual(await triggerCalls('stepped'), { jobs: 5, calls: 5 });
  });
});

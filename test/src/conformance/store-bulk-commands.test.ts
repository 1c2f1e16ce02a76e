// Bulk retry and cancel: every matching job changes, in pages of at most BULK_PAGE_SIZE rows per
// statement, and nothing else. A trigger logs every status change with the statement that made
// it (PostgreSQL: a statement-level trigger counts the rows of its transition table; SQLite: a row
// trigger logs total_changes(), which within one statement rises by exactly one per logged row,
// its own inserts, and jumps by the statement's changed rows between two statements).
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { BULK_PAGE_SIZE } from '@nudge/store';
import { rawQuery, type TestDatabase } from '../helpers/index.js';
import { describeStore, later, leaseOf } from './store-fixture.js';

async function logStatements(db: TestDatabase): Promise<void> {
  if (db.dialect === 'postgres') {
    await rawQuery(db, 'CREATE TABLE test_statements (n bigserial, changed int NOT NULL)');
    await rawQuery(
      db,
      `CREATE FUNCTION test_log_statement() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         INSERT INTO test_statements (changed)
           SELECT count(*) FROM new_rows AS n JOIN old_rows AS o ON o.id = n.id WHERE o.status <> n.status
           HAVING count(*) > 0;
         RETURN NULL;
       END $$`,
    );
    await rawQuery(
      db,
      `CREATE TRIGGER test_log_statement AFTER UPDATE ON nudge_jobs
       REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
       FOR EACH STATEMENT EXECUTE FUNCTION test_log_statement()`,
    );
    return;
  }
  await rawQuery(db, 'CREATE TABLE test_changes (n INTEGER PRIMARY KEY, total INTEGER NOT NULL)');
  await rawQuery(
    db,
    `CREATE TRIGGER test_log_change AFTER UPDATE OF status ON nudge_jobs
     WHEN OLD.status <> NEW.status
     BEGIN INSERT INTO test_changes (total) VALUES (total_changes()); END`,
  );
}

/** Rows changed by each logged statement, in order. */
async function statementSizes(db: TestDatabase): Promise<number[]> {
  if (db.dialect === 'postgres') {
    const rows = await rawQuery<{ changed: number }>(db, 'SELECT changed FROM test_statements ORDER BY n');
    return rows.map((row) => Number(row.changed));
  }
  const rows = await rawQuery<{ total: number }>(db, 'SELECT total FROM test_changes ORDER BY n');
  const sizes: number[] = [];
  let previous: number | undefined;
  for (const { total } of rows) {
    if (previous !== undefined && total === previous + 1) sizes[sizes.length - 1]! += 1;
    else sizes.push(1);
    previous = total;
  }
  return sizes;
}

async function clearLog(db: TestDatabase): Promise<void> {
  await rawQuery(db, db.dialect === 'postgres' ? 'DELETE FROM test_statements' : 'DELETE FROM test_changes');
}

/** Sets `count` jobs of `kind` straight to `status`, finished now: their history does not matter here. */
async function finishedJobs(
  db: TestDatabase,
  count: number,
  kind: string,
  status: string,
  queue = 'default',
) {
  const sql =
    db.dialect === 'postgres'
      ? `INSERT INTO nudge_jobs (kind, queue, status, attempts, finished_at)
         SELECT '${kind}', '${queue}', '${status}', 1, now() - interval '1 minute' FROM generate_series(1, ${count})`
      : `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count})
         INSERT INTO nudge_jobs (kind, queue, status, attempts, finished_at)
         SELECT '${kind}', '${queue}', '${status}', 1, strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-1 minute') FROM n`;
  await rawQuery(db, sql);
}

async function countOf(db: TestDatabase, where: string): Promise<number> {
  const [row] = await rawQuery<{ n: number }>(db, `SELECT count(*) AS n FROM nudge_jobs WHERE ${where}`);
  return Number(row?.n);
}

const TOTAL = 2 * BULK_PAGE_SIZE + 345;

describeStore('bulk retry and cancel', (t) => {
  it(`retries ${TOTAL} failed jobs of a kind, every statement changing at most ${BULK_PAGE_SIZE}`, async () => {
    await finishedJobs(t.db, TOTAL, 'k', 'FAILED');
    await finishedJobs(t.db, 40, 'other', 'FAILED');
    await finishedJobs(t.db, 30, 'k', 'CANCELLED');
    await finishedJobs(t.db, 20, 'k', 'SUCCEEDED');
    await logStatements(t.db);
    const result = await t.store.retryJobs({ status: 'FAILED', kind: 'k' });
    assert.equal(result.changed, TOTAL);
    assert.deepEqual(result.groups, [{ kind: 'k', queue: 'default', changed: TOTAL }]);
    assert.equal(result.pages, 3);
    const sizes = await statementSizes(t.db);
    assert.deepEqual(sizes, [BULK_PAGE_SIZE, BULK_PAGE_SIZE, 345], 'one statement per page');
    assert.equal(
      await countOf(t.db, "kind = 'k' AND status = 'PENDING' AND attempts = 0 AND finished_at IS NULL"),
      TOTAL,
    );
    assert.equal(await countOf(t.db, "kind = 'other' AND status = 'FAILED'"), 40, 'other kinds untouched');
    assert.equal(await countOf(t.db, "status = 'CANCELLED'"), 30, 'other statuses untouched');
    assert.equal(await countOf(t.db, "status = 'SUCCEEDED'"), 20);
    const again = await t.store.retryJobs({ status: 'FAILED', kind: 'k' });
    assert.equal(again.changed, 0, 'nothing left to retry');
  });

  it(`cancels ${TOTAL} pending jobs of a queue, every statement changing at most ${BULK_PAGE_SIZE}`, async () => {
    const inputs = Array.from({ length: TOTAL }, () => ({ kind: 'k', queue: 'bulk' }));
    await t.store.enqueueMany(inputs);
    await t.store.enqueueMany(Array.from({ length: 25 }, () => ({ kind: 'k' })));
    await logStatements(t.db);
    const result = await t.store.cancelJobs({ queue: 'bulk' });
    assert.equal(result.changed, TOTAL);
    assert.deepEqual(result.groups, [{ kind: 'k', queue: 'bulk', changed: TOTAL }]);
    assert.deepEqual(await statementSizes(t.db), [BULK_PAGE_SIZE, BULK_PAGE_SIZE, 345]);
    assert.equal(
      await countOf(t.db, "queue = 'bulk' AND status = 'CANCELLED' AND finished_at IS NOT NULL"),
      TOTAL,
    );
    assert.equal(
      await countOf(t.db, "queue = 'default' AND status = 'PENDING'"),
      25,
      'other queues untouched',
    );
  });

  it('a limit caps the total over pages', async () => {
    await finishedJobs(t.db, BULK_PAGE_SIZE + 500, 'k', 'CANCELLED');
    await logStatements(t.db);
    const result = await t.store.retryJobs({ status: 'CANCELLED', limit: BULK_PAGE_SIZE + 7 });
    assert.equal(result.changed, BULK_PAGE_SIZE + 7);
    assert.deepEqual(await statementSizes(t.db), [BULK_PAGE_SIZE, 7]);
    assert.equal(await countOf(t.db, "status = 'PENDING'"), BULK_PAGE_SIZE + 7);
    await clearLog(t.db);
    const cancelled = await t.store.cancelJobs({ statuses: ['PENDING'], limit: 3 });
    assert.equal(cancelled.changed, 3);
    assert.equal(await countOf(t.db, "status = 'PENDING'"), BULK_PAGE_SIZE + 4);
  });

  it('retry keeps to the queue and the finished-time bounds, and to the status asked for', async () => {
    const now = await t.store.now();
    const failAt = async (kind: string, queue: string, at: Date) => {
      await t.store.enqueue({ kind, queue, maxAttempts: 1 });
      const [job] = await t.claim(1, { kinds: [kind] });
      assert.ok(job);
      await t.store.fail([{ ...leaseOf(job), error: 'boom', retryDelayMs: 0 }], at);
      return job.id;
    };
    const old = await failAt('a', 'q1', later(now, -3_600_000));
    const mid = await failAt('a', 'q1', later(now, -1_800_000));
    const recent = await failAt('a', 'q1', later(now, -60_000));
    const otherQueue = await failAt('a', 'q2', later(now, -1_800_000));
    const result = await t.store.retryJobs({
      status: 'FAILED',
      queue: 'q1',
      finishedAfter: later(now, -2_000_000),
      finishedBefore: later(now, -60_000),
    });
    assert.equal(result.changed, 1);
    const status = async (id: number) => (await t.store.getJob(id))?.status;
    assert.equal(await status(mid), 'PENDING');
    assert.equal(await status(old), 'FAILED', 'finished before finishedAfter');
    assert.equal(await status(recent), 'FAILED', 'finishedBefore is exclusive');
    assert.equal(await status(otherQueue), 'FAILED', 'another queue');
    assert.equal((await t.store.retryJobs({ status: 'CANCELLED' })).changed, 0, 'no cancelled job');
    const retried = await t.store.getJob(mid);
    assert.equal(retried?.attempts, 0);
    assert.equal(retried?.lastError, 'boom', 'as the single retry: the last error stays readable');
  });

  it('cancel keeps to the statuses, the kind and the created-time bounds, and takes RUNNING jobs as the single cancel does', async () => {
    const now = await t.store.now();
    const scheduled = await t.store.enqueue({ kind: 'a', runAt: later(now, 3_600_000) });
    const pending = await t.store.enqueue({ kind: 'a' });
    const otherKind = await t.store.enqueue({ kind: 'b' });
    const running = await t.store.enqueue({ kind: 'c' });
    const [claimed] = await t.claim(1, { kinds: ['c'] });
    assert.equal(claimed?.id, running.id);
    const onlyScheduled = await t.store.cancelJobs({ statuses: ['SCHEDULED'], kind: 'a' });
    assert.equal(onlyScheduled.changed, 1);
    assert.equal((await t.store.getJob(scheduled.id))?.status, 'CANCELLED');
    assert.equal((await t.store.getJob(pending.id))?.status, 'PENDING');
    const future = await t.store.cancelJobs({ createdAfter: later(now, 60_000) });
    assert.equal(future.changed, 0, 'no job created after createdAfter');
    const past = await t.store.cancelJobs({ createdBefore: later(now, -60_000) });
    assert.equal(past.changed, 0, 'no job created before createdBefore');
    const runningOnly = await t.store.cancelJobs({ statuses: ['RUNNING'] });
    assert.equal(runningOnly.changed, 1);
    assert.ok(claimed);
    assert.deepEqual(runningOnly.running, [
      { id: running.id, version: claimed.version + 1, claimedBy: 'w1' },
    ]);
    const lease = leaseOf(claimed);
    assert.deepEqual(await t.store.heartbeat([lease], 10_000), [], 'the lease is gone');
    assert.deepEqual(
      await t.store.complete([{ ...lease, resultJson: '1' }]),
      [],
      'a late outcome changes nothing',
    );
    assert.equal((await t.store.getJob(running.id))?.status, 'CANCELLED');
    const rest = await t.store.cancelJobs({ kind: 'a' });
    assert.equal(rest.changed, 1);
    assert.equal((await t.store.getJob(otherKind.id))?.status, 'PENDING', 'another kind');
  });

  it('a job that finishes before its page reaches it is left alone; one finishing after the call started is not retried', async () => {
    await t.store.enqueueMany([{ kind: 'k' }, { kind: 'k' }]);
    const [first] = await t.claim(1);
    assert.ok(first);
    await t.store.complete([{ ...leaseOf(first), resultJson: null }]);
    const result = await t.store.cancelJobs({});
    assert.equal(result.changed, 1, 'only the unfinished job');
    assert.equal((await t.store.getJob(first.id))?.status, 'SUCCEEDED');
    const cutoffFirst = await t.store.retryJobs(
      { status: 'CANCELLED' },
      later(await t.store.now(), -3_600_000),
    );
    assert.equal(cutoffFirst.changed, 0, 'cancelled after the cutoff');
  });

  it('refuses a bad filter before reading a row', async () => {
    await finishedJobs(t.db, 3, 'k', 'FAILED');
    await assert.rejects(t.store.retryJobs({ status: 'RUNNING' }), { code: 'INVALID_REQUEST' });
    await assert.rejects(t.store.retryJobs({ status: 'FAILED', limit: 0 }), { code: 'INVALID_REQUEST' });
    await assert.rejects(t.store.retryJobs({ status: 'FAILED', limit: 1.5 }), { code: 'INVALID_REQUEST' });
    await assert.rejects(t.store.cancelJobs({ statuses: ['SUCCEEDED'] }), { code: 'INVALID_REQUEST' });
    await assert.rejects(t.store.cancelJobs({ statuses: [] }), { code: 'INVALID_REQUEST' });
    await assert.rejects(t.store.cancelJobs({ createdAfter: new Date(Number.NaN) }), {
      code: 'INVALID_REQUEST',
    });
    assert.equal(await countOf(t.db, "status = 'FAILED'"), 3);
  });
});

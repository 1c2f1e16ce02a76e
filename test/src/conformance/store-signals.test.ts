// Store.sendSignal and the signal trigger of migration 0024 on both dialects: a signal is stored
// (once per signalId), reaches only unfinished jobs, and releases a job WAITING for its name in
// the inserting transaction, however it is inserted.
import { it } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import assert from 'node:assert/strict';
import { NudgeError, type ErrorCode } from '@nudge/core';
import { rawQuery } from '../helpers/index.js';
import { describeStore, later, type StoreCase } from './store-fixture.js';

const HOUR_MS = 3_600_000;

/** Puts job `id` in WAITING for the signal `name` until `deadline`, as a suspend would. */
export async function waitForSignal(t: StoreCase, id: number, name: string, deadline: Date): Promise<void> {
  await rawQuery(t.db, "UPDATE nudge_jobs SET status = 'WAITING', wait_signal = ?, run_at = ? WHERE id = ?", [
    name,
    deadline.toISOString(),
    id,
  ]);
}

const signalRows = (t: StoreCase, jobId: number) =>
  rawQuery<{ name: string }>(t.db, 'SELECT name FROM nudge_job_signals WHERE job_id = ? ORDER BY id', [
    jobId,
  ]);

/**
 * Runs `statements` in one transaction on a connection of the test database's own driver, then
 * rolls it back; returns the rows of the last statement.
 */
async function rolledBack(t: StoreCase, statements: [string, unknown[]][]): Promise<unknown[]> {
  if (t.db.dialect === 'sqlite') {
    const conn = new Database(t.db.url.slice('sqlite:'.length));
    try {
      conn.pragma('busy_timeout = 5000');
      conn.exec('BEGIN IMMEDIATE');
      let rows: unknown[] = [];
      for (const [text, params] of statements) {
        const statement = conn.prepare(text);
        rows = statement.reader ? statement.all(...params) : (statement.run(...params), []);
      }
      conn.exec('ROLLBACK');
      return rows;
    } finally {
      conn.close();
    }
  }
  const client = new pg.Client({ connectionString: t.db.url });
  await client.connect();
  try {
    await client.query('BEGIN');
    let rows: unknown[] = [];
    for (const [text, params] of statements) {
      let n = 0;
      rows = (
        await client.query(
          text.replace(/\?/g, () => `$${++n}`),
          params,
        )
      ).rows;
    }
    await client.query('ROLLBACK');
    return rows;
  } finally {
    await client.end();
  }
}

const refusedWith = (code: ErrorCode) => (error: unknown) => {
  assert.ok(error instanceof NudgeError, String(error));
  assert.equal(error.code, code, error.message);
  return true;
};

describeStore('signals', (t) => {
  it('stores a signal with its payload and marks the job has_steps', async () => {
    const job = await t.store.enqueue({ kind: 'k' });
    assert.equal(job.hasSteps, false);
    assert.equal(job.waitSignal, null);
    const before = await t.store.now();
    const sent = await t.store.sendSignal({
      jobId: job.id,
      name: 'approve',
      payloadJson: JSON.stringify({ by: 'ada', n: [1, 2.5] }),
    });
    assert.equal(sent.created, true);
    assert.equal(sent.signal.jobId, job.id);
    assert.equal(sent.signal.name, 'approve');
    assert.deepEqual(sent.signal.payload, { by: 'ada', n: [1, 2.5] });
    assert.equal(sent.signal.signalId, null);
    assert.ok(sent.signal.id >= 1);
    assert.ok(sent.signal.createdAt.getTime() >= before.getTime() - 1000, 'created by the database clock');
    const after = await t.store.getJob(job.id);
    assert.equal(after?.hasSteps, true);
    assert.equal(after?.status, 'PENDING', 'a job that waits for nothing is left as it is');
    assert.equal(after?.version, job.version);

    const second = await t.store.sendSignal({ jobId: job.id, name: 'approve' });
    assert.equal(second.created, true, 'without a signalId every send is a new signal');
    assert.equal(second.signal.payload, null);
    const read = await t.store.jobSteps(job.id);
    assert.deepEqual(read.steps, []);
    assert.deepEqual(
      read.signals.map((s) => [s.id, s.name, s.payload]),
      [
        [sent.signal.id, 'approve', { by: 'ada', n: [1, 2.5] }],
        [second.signal.id, 'approve', null],
      ],
    );
  });

  it('answers a repeat of a signalId with the first signal, and writes nothing', async () => {
    const job = await t.store.enqueue({ kind: 'k' });
    const first = await t.store.sendSignal({ jobId: job.id, name: 'a', payloadJson: '1', signalId: 's-1' });
    const repeat = await t.store.sendSignal({ jobId: job.id, name: 'b', payloadJson: '2', signalId: 's-1' });
    assert.equal(first.created, true);
    assert.equal(repeat.created, false);
    assert.deepEqual(repeat.signal, first.signal);
    assert.equal(repeat.signal.signalId, 's-1');
    const other = await t.store.enqueue({ kind: 'k' });
    const elsewhere = await t.store.sendSignal({ jobId: other.id, name: 'a', signalId: 's-1' });
    assert.equal(elsewhere.created, true, 'a signalId is unique per job');
    assert.deepEqual(await signalRows(t, job.id), [{ name: 'a' }]);
    // A finished job still answers a repeat of a signal it was sent: the repeat changes nothing.
    assert.equal((await t.store.cancelJob(job.id)).outcome, 'changed');
    const late = await t.store.sendSignal({ jobId: job.id, name: 'a', signalId: 's-1' });
    assert.deepEqual(late, { signal: first.signal, created: false });
  });

  it('refuses an unknown job (JOB_NOT_FOUND) and a finished one (JOB_STATE_CONFLICT), writing nothing', async () => {
    await assert.rejects(t.store.sendSignal({ jobId: 999_999, name: 'a' }), refusedWith('JOB_NOT_FOUND'));
    const job = await t.store.enqueue({ kind: 'k' });
    assert.equal((await t.store.cancelJob(job.id)).outcome, 'changed');
    await assert.rejects(
      t.store.sendSignal({ jobId: job.id, name: 'a', signalId: 'new' }),
      refusedWith('JOB_STATE_CONFLICT'),
    );
    assert.deepEqual(await signalRows(t, job.id), []);
    assert.deepEqual(await rawQuery(t.db, 'SELECT id FROM nudge_job_signals'), []);
    assert.equal((await t.store.getJob(job.id))?.hasSteps, false);
  });

  it('refuses a bad name, signalId or payload before writing anything', async () => {
    const job = await t.store.enqueue({ kind: 'k' });
    const cases: [Parameters<typeof t.store.sendSignal>[0], ErrorCode][] = [
      [{ jobId: job.id, name: '' }, 'INVALID_REQUEST'],
      [{ jobId: job.id, name: 'x'.repeat(201) }, 'INVALID_REQUEST'],
      [{ jobId: job.id, name: 'ok', signalId: '' }, 'INVALID_REQUEST'],
      [{ jobId: job.id, name: 'ok', signalId: 'y'.repeat(201) }, 'INVALID_REQUEST'],
      [{ jobId: 0, name: 'ok' }, 'INVALID_REQUEST'],
      [{ jobId: job.id, name: 'a\u0000b' }, 'PAYLOAD_UNSTORABLE'],
      [{ jobId: job.id, name: 'ok', payloadJson: JSON.stringify({ a: 'x\u0000' }) }, 'PAYLOAD_UNSTORABLE'],
      [{ jobId: job.id, name: 'ok', payloadJson: '['.repeat(101) + ']'.repeat(101) }, 'PAYLOAD_TOO_DEEP'],
      [{ jobId: job.id, name: 'ok', payloadJson: '{not json' }, 'INVALID_REQUEST'],
    ];
    for (const [input, code] of cases) await assert.rejects(t.store.sendSignal(input), refusedWith(code));
    assert.deepEqual(await signalRows(t, job.id), []);
    // 200 characters, counted in code points (an emoji is one).
    const long = await t.store.sendSignal({
      jobId: job.id,
      name: '😀'.repeat(200),
      signalId: 'z'.repeat(200),
    });
    assert.equal(long.signal.name, '😀'.repeat(200));
  });

  it('releases a job WAITING for the name: PENDING now, in the signal’s transaction; another name leaves it', async () => {
    const now = await t.store.now();
    const job = await t.store.enqueue({ kind: 'k' });
    await waitForSignal(t, job.id, 'approve', later(now, HOUR_MS));
    const waiting = await t.store.getJob(job.id);
    assert.equal(waiting?.status, 'WAITING');
    assert.equal(waiting?.waitSignal, 'approve');

    await t.store.sendSignal({ jobId: job.id, name: 'other' });
    const still = await t.store.getJob(job.id);
    assert.equal(still?.status, 'WAITING');
    assert.equal(still?.waitSignal, 'approve');
    assert.equal(still?.runAt.getTime(), later(now, HOUR_MS).getTime(), 'the deadline is kept');

    await t.store.sendSignal({ jobId: job.id, name: 'approve', payloadJson: '"yes"' });
    const released = await t.store.getJob(job.id);
    assert.equal(released?.status, 'PENDING');
    assert.equal(released?.waitSignal, null);
    assert.ok((released?.runAt.getTime() ?? Infinity) <= (await t.store.now()).getTime(), 'due at once');
    const [claimed] = await t.claim(1);
    assert.equal(claimed?.id, job.id, 'the released job is claimed');
  });

  it('leaves a job WAITING for its dependencies, and a SCHEDULED one, as they are', async () => {
    const now = await t.store.now();
    const parent = await t.store.enqueue({ kind: 'k', runAt: later(now, HOUR_MS) });
    const child = await t.store.enqueue({ kind: 'k', dependsOn: [parent.id] });
    assert.equal(child.status, 'WAITING');
    await t.store.sendSignal({ jobId: child.id, name: 'approve' });
    await t.store.sendSignal({ jobId: parent.id, name: 'approve' });
    assert.equal((await t.store.getJob(child.id))?.status, 'WAITING');
    assert.equal((await t.store.getJob(parent.id))?.status, 'SCHEDULED');
  });

  it('releases a job without a deadline (PostgreSQL infinity), which reads back with NO_DEADLINE', async () => {
    const job = await t.store.enqueue({ kind: 'k' });
    const forever = t.db.dialect === 'postgres' ? 'infinity' : '9999-12-31T23:59:59.999Z';
    await rawQuery(
      t.db,
      "UPDATE nudge_jobs SET status = 'WAITING', wait_signal = 'go', run_at = ? WHERE id = ?",
      [forever, job.id],
    );
    const waiting = await t.store.getJob(job.id);
    assert.equal(waiting?.runAt.toISOString(), '9999-12-31T23:59:59.999Z');
    const [listed] = await t.store.listJobs({ status: 'WAITING', limit: 10 });
    assert.equal(listed?.runAt.toISOString(), '9999-12-31T23:59:59.999Z');
    await t.store.sendSignal({ jobId: job.id, name: 'go' });
    assert.equal((await t.store.getJob(job.id))?.status, 'PENDING');
  });

  it('releases a waiting job on a plain SQL INSERT, seen inside that transaction, undone by its rollback', async () => {
    const now = await t.store.now();
    const job = await t.store.enqueue({ kind: 'k' });
    await waitForSignal(t, job.id, 'approve', later(now, HOUR_MS));
    const insert = 'INSERT INTO nudge_job_signals (job_id, name, payload) VALUES (?, ?, ?)';
    const inside = await rolledBack(t, [
      [insert, [job.id, 'approve', '{"ok":true}']],
      ['SELECT status, wait_signal FROM nudge_jobs WHERE id = ?', [job.id]],
    ]);
    assert.deepEqual(
      inside,
      [{ status: 'PENDING', wait_signal: null }],
      'released in the inserting transaction',
    );
    const after = await t.store.getJob(job.id);
    assert.equal(after?.status, 'WAITING', 'the rollback undid the release');
    assert.equal(after?.hasSteps, false);
    assert.deepEqual(await signalRows(t, job.id), []);

    await rawQuery(t.db, insert, [job.id, 'approve', '{"ok":true}']);
    const released = await t.store.getJob(job.id);
    assert.equal(released?.status, 'PENDING');
    assert.equal(released?.hasSteps, true);
    const { signals } = await t.store.jobSteps(job.id);
    assert.deepEqual(
      signals.map((s) => [s.name, s.payload, s.signalId]),
      [['approve', { ok: true }, null]],
    );
    await assert.rejects(
      rawQuery(t.db, insert, [999_999, 'approve', 'null']),
      /signal needs an unfinished job/,
    );
  });

  it('deletes the signals and steps of a job with it (retention, or a plain DELETE)', async () => {
    const now = await t.store.now();
    const pruned = await t.store.enqueue({ kind: 'k' });
    const deleted = await t.store.enqueue({ kind: 'k' });
    const kept = await t.store.enqueue({ kind: 'k' });
    for (const job of [pruned, deleted, kept]) {
      await t.store.sendSignal({ jobId: job.id, name: 'a', signalId: `s-${job.id}` });
      await rawQuery(
        t.db,
        "INSERT INTO nudge_job_steps (job_id, name, position, type, status, attempt, result, started_at, ended_at) VALUES (?, 'one', 0, 'step', 'SUCCEEDED', 1, '1', ?, ?)",
        [job.id, now.toISOString(), now.toISOString()],
      );
    }
    assert.equal((await t.store.cancelJob(pruned.id, later(now, -2 * HOUR_MS))).outcome, 'changed');
    assert.equal(
      await t.store.pruneFinished({ status: 'CANCELLED', kind: 'k', olderThanMs: HOUR_MS, limit: 10 }),
      1,
    );
    await rawQuery(t.db, 'DELETE FROM nudge_jobs WHERE id = ?', [deleted.id]);
    const left = async (table: string) =>
      (await rawQuery<{ job_id: number | string }>(t.db, `SELECT job_id FROM ${table} ORDER BY job_id`)).map(
        (r) => Number(r.job_id),
      );
    assert.deepEqual(await left('nudge_job_signals'), [kept.id]);
    assert.deepEqual(await left('nudge_job_steps'), [kept.id]);
    assert.equal((await t.store.jobSteps(kept.id)).steps.length, 1);
  });

  it('reads the steps in the order first recorded, with their results, errors and times', async () => {
    const now = await t.store.now();
    const job = await t.store.enqueue({ kind: 'k' });
    const at = (ms: number) => later(now, ms).toISOString();
    const step = `INSERT INTO nudge_job_steps
      (job_id, name, position, type, status, attempt, result, error, started_at, ended_at, wake_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
    await rawQuery(t.db, step, [
      job.id,
      'wait',
      2,
      'signal',
      'WAITING',
      2,
      null,
      null,
      at(30),
      null,
      at(HOUR_MS),
    ]);
    await rawQuery(t.db, step, [
      job.id,
      'fetch',
      0,
      'step',
      'SUCCEEDED',
      1,
      '{"rows":3}',
      null,
      at(0),
      at(10),
      null,
    ]);
    await rawQuery(t.db, step, [
      job.id,
      'nap',
      1,
      'sleep',
      'SLEEPING',
      2,
      null,
      null,
      at(20),
      null,
      at(5000),
    ]);
    await rawQuery(t.db, step, [job.id, 'bad', 3, 'step', 'FAILED', 2, null, 'boom', at(40), at(45), null]);
    const { steps } = await t.store.jobSteps(job.id);
    assert.deepEqual(
      steps.map((s) => [s.name, s.type, s.status, s.attempt, s.result, s.error]),
      [
        ['fetch', 'step', 'SUCCEEDED', 1, { rows: 3 }, null],
        ['nap', 'sleep', 'SLEEPING', 2, null, null],
        ['wait', 'signal', 'WAITING', 2, null, null],
        ['bad', 'step', 'FAILED', 2, null, 'boom'],
      ],
    );
    const [fetch, nap] = steps;
    assert.equal(fetch?.startedAt.toISOString(), at(0));
    assert.equal(fetch?.endedAt?.toISOString(), at(10));
    assert.equal(fetch?.wakeAt, null);
    assert.equal(nap?.endedAt, null);
    assert.equal(nap?.wakeAt?.toISOString(), at(5000));
    assert.deepEqual(await t.store.jobSteps(999_999), { steps: [], signals: [] });
  });
});

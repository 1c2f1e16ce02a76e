import { it } from 'node:test';
import assert from 'node:assert/strict';
import { rawQuery, waitUntil } from '../helpers/index.js';
import { concurrentProducers } from './concurrent-producers.js';
import { describeStore, later, leaseOf, LEASE_MS } from './store-fixture.js';

const PRODUCERS = 20;
const HOUR_MS = 3_600_000;

describeStore('dedupe windows', (t) => {
  const count = async (sql: string, params: unknown[] = []): Promise<number> => {
    const [row] = await rawQuery<{ n: number | string }>(t.db, sql, params);
    return Number(row?.n ?? 0);
  };
  const jobsOf = (kind: string) =>
    count(`SELECT count(*) AS n FROM nudge_jobs WHERE kind = ${t.db.dialect === 'postgres' ? '$1' : '?'}`, [
      kind,
    ]);
  const windows = () => count('SELECT count(*) AS n FROM nudge_throttle_windows');

  it('throttle: an enqueue in the open window creates nothing and returns the window job; keys are per kind', async () => {
    const first = await t.store.enqueue({
      kind: 'k',
      payload: { n: 1 },
      throttle: { key: 'acct-1', windowMs: HOUR_MS },
    });
    assert.equal(first.created, true);
    assert.equal(first.throttleKey, 'acct-1');
    assert.equal(first.debounceKey, null);
    const again = await t.store.enqueue({
      kind: 'k',
      payload: { n: 2 },
      throttle: { key: 'acct-1', windowMs: 5 },
    });
    assert.equal(again.created, false);
    assert.equal(again.id, first.id);
    assert.deepEqual(again.payload, { n: 1 }, 'the window job, unchanged');
    const otherKey = await t.store.enqueue({ kind: 'k', throttle: { key: 'acct-2', windowMs: HOUR_MS } });
    const otherKind = await t.store.enqueue({ kind: 'a', throttle: { key: 'acct-1', windowMs: HOUR_MS } });
    assert.equal(otherKey.created, true);
    assert.equal(otherKind.created, true);
    assert.equal((await t.store.getJob(first.id))?.throttleKey, 'acct-1');
    assert.equal(await jobsOf('k'), 2);
  });

  it('throttle: the window closes windowMs after its job was created, by the database clock; the next enqueue opens a new one', async () => {
    const windowMs = 200;
    const first = await t.store.enqueue({ kind: 'k', throttle: { key: 'w', windowMs } });
    const inside = await t.store.enqueue({ kind: 'k', throttle: { key: 'w', windowMs } });
    assert.equal(inside.id, first.id, 'still open');
    // One ms past: the database keeps microseconds, a Date only milliseconds, so the Date of the
    // close can be up to 1 ms before the window really closes.
    const closes = later(first.createdAt, windowMs + 1);
    await waitUntil(
      async () => ((await t.store.now()) >= closes ? true : undefined),
      5000,
      10,
      'the window closed',
    );
    const second = await t.store.enqueue({ kind: 'k', throttle: { key: 'w', windowMs: HOUR_MS } });
    assert.equal(second.created, true);
    assert.notEqual(second.id, first.id);
    const third = await t.store.enqueue({ kind: 'k', throttle: { key: 'w', windowMs } });
    assert.equal(third.id, second.id, 'the new window (an hour long) is open');
    assert.equal(await jobsOf('k'), 2);
    assert.equal(await windows(), 1, 'one window row per kind and key');
  });

  it('throttle: a batch repeating a key creates one job; a delayed throttled job waits SCHEDULED', async () => {
    const now = await t.store.now();
    const jobs = await t.store.enqueueMany([
      { kind: 'k', throttle: { key: 'x', windowMs: HOUR_MS }, delayMs: 60_000 },
      { kind: 'k' },
      { kind: 'k', throttle: { key: 'x', windowMs: HOUR_MS } },
      { kind: 'k', throttle: { key: 'y', windowMs: HOUR_MS } },
    ]);
    assert.deepEqual(
      jobs.map((j) => j.created),
      [true, true, false, true],
    );
    assert.equal(jobs[2]?.id, jobs[0]?.id);
    assert.equal(jobs[0]?.status, 'SCHEDULED');
    assert.ok((jobs[0]?.runAt.getTime() ?? 0) >= now.getTime() + 60_000);
    assert.ok(
      (jobs[0]?.id ?? 0) < (jobs[1]?.id ?? 0) && (jobs[1]?.id ?? 0) < (jobs[3]?.id ?? 0),
      'ids in input order',
    );
  });

  it('throttle: retention keeps the job of an open window, and deletes it (closing the window) once the window closed', async () => {
    const first = await t.store.enqueue({ kind: 'done', throttle: { key: 'r', windowMs: HOUR_MS } });
    const plain = await t.store.enqueue({ kind: 'done' });
    for (const claimed of await t.claim(2, { kinds: ['done'] }))
      await t.store.complete([{ ...leaseOf(claimed), resultJson: null }]);
    const prune = async (afterMs: number) =>
      t.store.pruneFinished({
        status: 'SUCCEEDED',
        kind: 'done',
        olderThanMs: 0,
        limit: 10,
        now: later(first.createdAt, afterMs),
      });
    // Past retention (finished more than 0 ms ago) but inside the hour-long window.
    assert.equal(await prune(60_000), 1, 'only the unthrottled job is deleted');
    assert.equal(await t.store.getJob(plain.id), undefined);
    assert.equal((await t.store.getJob(first.id))?.status, 'SUCCEEDED', 'the window job is kept');
    assert.equal(await windows(), 1);
    const inside = await t.store.enqueue({ kind: 'done', throttle: { key: 'r', windowMs: HOUR_MS } });
    assert.equal(inside.created, false, 'the window is still open');
    assert.equal(inside.id, first.id);
    assert.equal(await prune(HOUR_MS + 1000), 1, 'the window closed: its job goes');
    assert.equal(await windows(), 0, 'the window went with its job');
    const next = await t.store.enqueue({ kind: 'done', throttle: { key: 'r', windowMs: HOUR_MS } });
    assert.equal(next.created, true);
    assert.notEqual(next.id, first.id);
  });

  it('throttle: a window whose job was deleted by hand is reopened', async () => {
    const first = await t.store.enqueue({ kind: 'k', throttle: { key: 'gone', windowMs: HOUR_MS } });
    // Written as a tool outside nudge would: the window row is left behind.
    await rawQuery(
      t.db,
      'DROP TRIGGER nudge_jobs_close_windows' + (t.db.dialect === 'postgres' ? ' ON nudge_jobs' : ''),
    );
    await rawQuery(t.db, `DELETE FROM nudge_jobs WHERE id = ${first.id}`);
    assert.equal(await windows(), 1);
    const next = await t.store.enqueue({ kind: 'k', throttle: { key: 'gone', windowMs: HOUR_MS } });
    assert.equal(next.created, true);
    assert.notEqual(next.id, first.id);
  });

  it('throttle: enqueueAndClaim never claims a job of an open window', async () => {
    const first = await t.store.enqueue({ kind: 'k', throttle: { key: 'c', windowMs: HOUR_MS } });
    const again = await t.store.enqueueAndClaim(
      { kind: 'k', throttle: { key: 'c', windowMs: HOUR_MS } },
      { workerId: 'self', leaseMs: LEASE_MS, kinds: ['k'] },
    );
    assert.equal(again.id, first.id);
    assert.equal(again.created, false);
    assert.equal(again.status, 'PENDING');
  });

  it(`throttle: ${PRODUCERS} concurrent producers of one key create exactly one job, and every answer names it`, async () => {
    const answers = await concurrentProducers(
      t.db,
      { kind: 'k', throttle: { key: 'race', windowMs: HOUR_MS } },
      PRODUCERS,
    );
    assert.equal(answers.length, PRODUCERS);
    assert.equal(await jobsOf('k'), 1);
    assert.equal(new Set(answers.map((a) => a.id)).size, 1, 'every producer got the same job');
    assert.equal(answers.filter((a) => a.created).length, 1, 'exactly one producer created it');
  });

  it('debounce: a new job waits SCHEDULED at now + delayMs; an enqueue while it waits replaces its payload and moves run_at', async () => {
    const before = await t.store.now();
    const first = await t.store.enqueue({
      kind: 'k',
      payload: { n: 1 },
      debounce: { key: 'd', delayMs: 60_000 },
    });
    assert.equal(first.created, true);
    assert.equal(first.status, 'SCHEDULED');
    assert.equal(first.debounceKey, 'd');
    assert.ok(first.runAt.getTime() >= before.getTime() + 60_000);
    const mid = await t.store.now();
    const again = await t.store.enqueue({
      kind: 'k',
      payload: { n: 2 },
      debounce: { key: 'd', delayMs: 120_000 },
    });
    assert.equal(again.created, false);
    assert.equal(again.id, first.id);
    assert.equal(again.status, 'SCHEDULED');
    assert.deepEqual(again.payload, { n: 2 });
    assert.ok(again.runAt.getTime() >= mid.getTime() + 120_000, 'run_at moved to now + the new delayMs');
    const stored = await t.store.getJob(first.id);
    assert.deepEqual(stored?.payload, { n: 2 });
    assert.equal(stored?.runAt.getTime(), again.runAt.getTime());
    assert.equal(stored?.version, first.version, 'no claim happened: the fencing token is unchanged');
    const otherKind = await t.store.enqueue({ kind: 'a', debounce: { key: 'd', delayMs: 60_000 } });
    assert.equal(otherKind.created, true);
    assert.equal(await jobsOf('k'), 1);
  });

  it('debounce: once the job left SCHEDULED (promoted, cancelled), the next enqueue creates a new one', async () => {
    const first = await t.store.enqueue({
      kind: 'k',
      payload: { n: 1 },
      debounce: { key: 'p', delayMs: 1000 },
    });
    assert.equal((await t.store.promoteScheduled({ now: later(first.runAt, 1) })).promoted, 1);
    const second = await t.store.enqueue({
      kind: 'k',
      payload: { n: 2 },
      debounce: { key: 'p', delayMs: 1000 },
    });
    assert.equal(second.created, true);
    assert.notEqual(second.id, first.id);
    assert.deepEqual((await t.store.getJob(first.id))?.payload, { n: 1 }, 'the promoted job is left alone');
    await t.store.cancelJob(second.id);
    const third = await t.store.enqueue({ kind: 'k', debounce: { key: 'p', delayMs: 1000 } });
    assert.equal(third.created, true);
    assert.equal(third.status, 'SCHEDULED');
  });

  it('debounce: a batch repeating a key keeps one waiting job with the last payload', async () => {
    const jobs = await t.store.enqueueMany([
      { kind: 'k', payload: { n: 1 }, debounce: { key: 'b', delayMs: 60_000 } },
      { kind: 'k', payload: { n: 2 }, debounce: { key: 'b', delayMs: 60_000 } },
      { kind: 'k', payload: { n: 3 } },
    ]);
    assert.deepEqual(
      jobs.map((j) => j.created),
      [true, false, true],
    );
    assert.equal(jobs[1]?.id, jobs[0]?.id);
    assert.deepEqual((await t.store.getJob(jobs[0]?.id ?? 0))?.payload, { n: 2 });
  });

  it(`debounce: ${PRODUCERS} concurrent producers of one key leave exactly one SCHEDULED job, with one of their payloads`, async () => {
    const before = await t.store.now();
    const answers = await concurrentProducers(
      t.db,
      { kind: 'k', debounce: { key: 'race', delayMs: HOUR_MS } },
      PRODUCERS,
    );
    assert.equal(answers.length, PRODUCERS);
    assert.equal(await jobsOf('k'), 1);
    assert.equal(new Set(answers.map((a) => a.id)).size, 1, 'every producer got the same job');
    assert.equal(answers.filter((a) => a.created).length, 1, 'exactly one producer created it');
    const job = await t.store.getJob(answers[0]?.id ?? 0);
    assert.equal(job?.status, 'SCHEDULED');
    // The job holds the last replacement: its payload and run_at are what one replacing producer
    // was answered, and run_at is that producer's now + delayMs.
    const last = answers.find(
      (a) =>
        !a.created &&
        JSON.stringify(a.payload) === JSON.stringify(job?.payload) &&
        a.runAt === job?.runAt.toISOString(),
    );
    assert.ok(last, `the stored payload ${JSON.stringify(job?.payload)} is one a replacing producer wrote`);
    assert.ok((job?.runAt.getTime() ?? 0) >= before.getTime() + HOUR_MS);
  });

  it('ctx.enqueue follow-ups: a throttled one in an open window and a debounced one waiting are not added again', async () => {
    await t.store.enqueueMany([{ kind: 'a' }, { kind: 'a' }]);
    const claimed = await t.claim(2, { kinds: ['a'] });
    assert.equal(claimed.length, 2);
    const followUps = [
      { kind: 'b', payloadJson: '{"n":1}', throttle: { key: 't', windowMs: HOUR_MS } },
      { kind: 'c', payloadJson: '{"n":1}', debounce: { key: 'd', delayMs: HOUR_MS } },
      { kind: 'k' },
    ];
    const second = [
      { kind: 'b', payloadJson: '{"n":2}', throttle: { key: 't', windowMs: HOUR_MS } },
      { kind: 'c', payloadJson: '{"n":2}', debounce: { key: 'd', delayMs: HOUR_MS } },
    ];
    const written = await t.store.complete(
      claimed.map((job, i) => ({
        ...leaseOf(job),
        resultJson: null,
        followUps: i === 0 ? followUps : second,
      })),
    );
    assert.equal(written.length, 2);
    assert.equal(await jobsOf('b'), 1);
    assert.equal(await jobsOf('c'), 1);
    assert.equal(await jobsOf('k'), 1);
    const [throttled] = await t.store.listJobs({ kind: 'b', limit: 1 });
    const [debounced] = await t.store.listJobs({ kind: 'c', limit: 1 });
    assert.deepEqual(throttled?.payload, { n: 1 }, 'the first follow-up of the window');
    assert.deepEqual(debounced?.payload, { n: 2 }, 'the last follow-up replaced the waiting one');
    assert.equal(debounced?.status, 'SCHEDULED');
    // A fenced-out completion enqueues nothing.
    const late = await t.store.complete([
      {
        ...leaseOf(claimed[0]!),
        resultJson: null,
        followUps: [{ kind: 'c', debounce: { key: 'other', delayMs: 1000 } }],
      },
    ]);
    assert.equal(late.length, 0);
    assert.equal(await jobsOf('c'), 1);
  });
});

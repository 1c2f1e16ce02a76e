import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describeEngine, rawQuery, waitForEvent, waitUntil } from '../helpers/index.js';

const lines = (file: string): string[] =>
  existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];

describeEngine('follow-up jobs from handlers', (t) => {
  it('a handler that fans out N follow-ups: N new jobs are inserted with the completion and run', async () => {
    const engine = await t.engine({ threads: 2 });
    const file = join(t.scratch.dir, 'tally');
    const parent = await t.store.enqueue({ kind: 'fanOut', payload: { n: 5, file } });
    const followed = waitForEvent<{ id: number; followUps: number; due: boolean }>(engine, 'job:followed-up');
    engine.start();
    assert.deepEqual(
      { ...(await followed), version: undefined },
      { id: parent.id, version: undefined, followUps: 5, due: true, nextDelayMs: null },
    );
    await waitUntil(() => (lines(file).length === 5 ? true : undefined), 10_000, 20, 'five tallies');
    const children = (await t.store.listJobs({ kind: 'tally', limit: 10 })).sort((a, b) => a.id - b.id);
    assert.deepEqual(
      children.map((j) => [j.payload, j.priority]),
      [0, 1, 2, 3, 4].map((i) => [{ file, i }, i]),
    );
    assert.ok(children.every((c) => c.createdAt.getTime() === (children[0]?.createdAt.getTime() ?? 0)));
  });

  it('ctx.enqueue with throttle and debounce: one job per window, and one waiting job holding the last payload', async () => {
    const engine = await t.engine({ threads: 1 });
    const throttle = { key: 'acct', windowMs: 3_600_000 };
    const debounce = { key: 'doc', delayMs: 3_600_000 };
    const calls = [1, 2].flatMap((n) => [
      { kind: 'noop', payload: { n }, options: { throttle } },
      { kind: 'tally', payload: { n }, options: { debounce } },
    ]);
    const parent = await t.store.enqueue({ kind: 'enqueueEach', payload: { calls } as never });
    engine.start();
    await waitUntil(async () =>
      (await t.store.getJob(parent.id))?.status === 'SUCCEEDED' ? true : undefined,
    );
    const throttled = await t.store.listJobs({ kind: 'noop', limit: 10 });
    const debounced = await t.store.listJobs({ kind: 'tally', limit: 10 });
    assert.deepEqual(
      throttled.map((j) => [j.payload, j.throttleKey]),
      [[{ n: 1 }, 'acct']],
    );
    assert.deepEqual(
      debounced.map((j) => [j.payload, j.debounceKey, j.status]),
      [[{ n: 2 }, 'doc', 'SCHEDULED']],
    );
  });

  it('a handler re-enqueues itself with a delay until a count is reached', async () => {
    const engine = await t.engine({ threads: 1 });
    const file = join(t.scratch.dir, 'recur');
    await t.store.enqueue({ kind: 'recur', payload: { count: 1, max: 3, delayMs: 150, file } });
    engine.start();
    await waitUntil(async () => ((await t.store.countByStatus()).SUCCEEDED === 3 ? true : undefined));
    assert.deepEqual(lines(file), ['1', '2', '3']);
    const jobs = (await t.store.listJobs({ kind: 'recur', limit: 10 })).sort((a, b) => a.id - b.id);
    assert.equal(jobs.length, 3, 'the last run enqueued nothing');
    for (let i = 1; i < jobs.length; i += 1) {
      const previous = jobs[i - 1]?.finishedAt?.getTime() ?? 0;
      const runAt = jobs[i]?.runAt.getTime() ?? 0;
      assert.ok(runAt >= previous + 150 && runAt < previous + 1000, `run ${i + 1} due 150 ms after run ${i}`);
      assert.ok((jobs[i]?.startedAt?.getTime() ?? 0) >= runAt, 'not started before it was due');
    }
  });

  it('a completion fenced out (the job lost its lease) enqueues nothing', async () => {
    const engine = await t.engine({ threads: 1 });
    const job = await t.store.enqueue({
      kind: 'enqueueThenHold',
      payload: { releaseFile: t.scratch.releaseFile },
    });
    engine.start();
    await waitForEvent(engine, 'job:started');
    // Another instance took the job over (as after a sweep and a new claim).
    await rawQuery(
      t.db,
      `UPDATE nudge_jobs SET version = version + 1, claimed_by = 'someone-else' WHERE id = ?`,
      [job.id],
    );
    const lost = waitForEvent<{ id: number }>(engine, 'job:lease-lost');
    t.scratch.release();
    assert.equal((await lost).id, job.id);
    await engine.stop();
    assert.deepEqual(
      (await t.store.listJobs({ limit: 10 })).map((j) => j.kind),
      ['enqueueThenHold'],
    );
    assert.equal((await t.store.getJob(job.id))?.status, 'RUNNING');
  });

  it("a failed attempt's recorded follow-ups are dropped", async () => {
    const engine = await t.engine({ threads: 1 });
    const job = await t.store.enqueue({ kind: 'enqueueThenFail', maxAttempts: 1 });
    engine.start();
    await waitForEvent(engine, 'job:failed', (f: { id: number }) => f.id === job.id);
    assert.deepEqual(
      (await t.store.listJobs({ limit: 10 })).map((j) => j.kind),
      ['enqueueThenFail'],
    );
  });
});

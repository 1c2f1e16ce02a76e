import { it } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_RESULT_BYTES } from '@nudge/core';
import { describeEngine, waitForEvent, waitUntil } from '../helpers/index.js';

describeEngine('handler progress, result limit and attempt history', (t) => {
  it('progress is written while the job runs, throttled, and the last value stays after success', async () => {
    const engine = await t.engine({ threads: 1, progressIntervalMs: 100 });
    let writes = 0;
    engine.on('progress:written', ({ sent }) => (writes += sent > 0 ? 1 : 0));
    const job = await t.store.enqueue({ kind: 'progressSteps', payload: { steps: 20, ms: 30 } });
    engine.start();
    const seen = await waitUntil(
      async () => {
        const row = await t.store.getJob(job.id);
        return row?.status === 'RUNNING' && row.progress !== null ? row.progress : undefined;
      },
      10_000,
      10,
      'progress while running',
    );
    assert.match(String((seen as { step: string }).step), /^step \d+$/);
    await waitForEvent(engine, 'job:succeeded', (lease: { id: number }) => lease.id === job.id);
    const row = await t.store.getJob(job.id);
    assert.equal(row?.status, 'SUCCEEDED');
    assert.deepEqual(row?.progress, { percent: 100, step: 'done' });
    // 2,000 calls over about 600 ms: one write per 100 ms at most, plus the leading one.
    assert.ok(writes >= 2 && writes <= 9, `throttled to a few writes (got ${writes})`);
  });

  it('the last progress before the handler returns is not lost, however long the interval', async () => {
    const engine = await t.engine({ threads: 1, progressIntervalMs: 60_000 });
    const job = await t.store.enqueue({ kind: 'progressSteps', payload: { steps: 3, ms: 5 } });
    engine.start();
    await waitForEvent(engine, 'job:succeeded', (lease: { id: number }) => lease.id === job.id);
    assert.deepEqual((await t.store.getJob(job.id))?.progress, { percent: 100, step: 'done' });
  });

  it('progress of several jobs goes in one statement', async () => {
    const engine = await t.engine({ threads: 2, progressIntervalMs: 100 });
    const payload = { releaseFile: t.scratch.releaseFile };
    const jobs = await t.store.enqueueMany([
      { kind: 'progressHold', payload },
      { kind: 'progressHold', payload },
    ]);
    engine.start();
    await waitForEvent<{ written: number }>(engine, 'progress:written', (w) => w.written === 2);
    for (const job of jobs) assert.equal(typeof (await t.store.getJob(job.id))?.progress, 'number');
    t.scratch.release();
    await waitUntil(async () => ((await t.store.countByStatus()).SUCCEEDED === 2 ? true : undefined));
  });

  it('bad ctx.progress and ctx.enqueue input throws a clear error inside the handler', async () => {
    const engine = await t.engine({ threads: 1 });
    const job = await t.store.enqueue({ kind: 'badContextCalls' });
    engine.start();
    await waitForEvent(engine, 'job:succeeded', (lease: { id: number }) => lease.id === job.id);
    const { thrown } = (await t.store.getJob(job.id))?.result as { thrown: string[] };
    const expected = [
      /^RangeError: ctx.progress: a progress number must be a number from 0 to 100 \(got 101\)/,
      /^TypeError: ctx.progress takes a number from 0 to 100 or a plain object .*\(got a string\)/,
      /^TypeError: .*\(got an array\)/,
      /^RangeError: ctx.progress: percent must be a number from 0 to 100 \(got -1\)/,
      /^RangeError: ctx.progress: the value is 50\d\d bytes of JSON, more than the limit of 4096/,
      /^TypeError: ctx.progress: the value at "\/text" cannot be stored: a string contains U\+0000/,
      /^NudgeError: \/kind must be a string of 1 to 200 characters \(got ""\)/,
      /^NudgeError: \/payload\/s: a string contains a lone UTF-16 surrogate/,
      /^NudgeError: \/priority must be an integer from -1000 to 1000 \(got 1.5\)/,
      /^NudgeError: \/delayMs must be a whole number of ms from 0 to/,
      /^NudgeError: \/runAt and \/delayMs cannot both be given/,
      /^NudgeError: \/maxAttempts must be an integer from 1 to 1000/,
    ];
    assert.equal(thrown.length, expected.length);
    expected.forEach((pattern, i) => assert.match(thrown[i] ?? '', pattern));
    assert.equal((await t.store.countByStatus()).PENDING, 0, 'no follow-up was recorded');
  });

  it('a result over the size limit fails the attempt permanently, naming the limit and the size', async () => {
    const engine = await t.engine({ threads: 1 });
    const chars = MAX_RESULT_BYTES + 10;
    const [big, fits] = await t.store.enqueueMany([
      { kind: 'bigResult', payload: { chars }, maxAttempts: 3 },
      { kind: 'bigResult', payload: { chars: MAX_RESULT_BYTES - 2 } },
    ]);
    engine.start();
    await waitForEvent(engine, 'job:failed', (f: { id: number }) => f.id === big?.id);
    const row = await t.store.getJob(big?.id ?? -1);
    assert.equal(row?.status, 'FAILED', 'not retried: the same result would fail again');
    assert.equal(row?.attempts, 1);
    assert.equal(
      row?.lastError,
      `the handler's result is ${chars + 2} bytes of JSON, more than the limit of ${MAX_RESULT_BYTES} bytes (1 MiB): store large data elsewhere and return a reference to it`,
    );
    await waitUntil(async () =>
      (await t.store.getJob(fits?.id ?? -1))?.status === 'SUCCEEDED' ? true : undefined,
    );
  });

  it('a failed attempt keeps its last progress and adds an entry to errors with this instance', async () => {
    const engine = await t.engine({ threads: 1, workerId: 'instance-a' });
    const job = await t.store.enqueue({ kind: 'progressThenFail', maxAttempts: 2 });
    engine.start();
    await waitForEvent(engine, 'job:failed', (f: { status: string }) => f.status === 'FAILED');
    const row = await t.store.getJob(job.id);
    assert.equal(row?.progress, 33);
    assert.deepEqual(
      row?.errors.map(({ attempt, error, instance }) => ({ attempt, error, instance })),
      [
        { attempt: 1, error: 'failed after some progress', instance: 'instance-a' },
        { attempt: 2, error: 'failed after some progress', instance: 'instance-a' },
      ],
    );
    assert.ok((row?.errors[0]?.at.getTime() ?? 0) <= (row?.errors[1]?.at.getTime() ?? 0));
  });
});

// ctx.log beside flow control, in real threads on both dialects: dependencies, a queue's
// cluster-wide limit and dedupe windows never mix one job's lines into another's, and a job that
// never ran (cancelled by its dependency's failure) has none.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { Job } from '@nudge/core';
import { describeEngine, waitUntil, type EngineCase } from '../helpers/index.js';

/** Each stored line of job `id` as `[seq, attempt, message]`, and the count of dropped lines. */
async function linesOf(t: EngineCase, id: number) {
  const read = await t.store.readJobLogs({ jobId: id, after: 0, limit: 1000 });
  assert.ok(read, `job ${id} exists`);
  return {
    lines: read.lines.map((line) => [line.seq, line.attempt, line.message] as const),
    dropped: read.dropped,
  };
}

/** The job once it is `SUCCEEDED`, `FAILED` or `CANCELLED`. */
const finished = (t: EngineCase, id: number): Promise<Job> =>
  waitUntil(async () => {
    const job = await t.store.getJob(id);
    return job && ['SUCCEEDED', 'FAILED', 'CANCELLED'].includes(job.status) ? job : undefined;
  }, 30_000);

/** What `logLines` stores for one attempt that succeeds with `count` lines, from `firstSeq`. */
const succeededLines = (count: number, attempt = 1, firstSeq = 1) => [
  ...Array.from(
    { length: count },
    (_, i) => [firstSeq + i, attempt, `line ${i + 1} of attempt ${attempt}`] as const,
  ),
  [firstSeq + count, attempt, 'done'] as const,
];

/** What `logLines` with `{ count: 2, failUntil: 2 }` stores for attempt 1, from `firstSeq`. */
const FAILED_ATTEMPT = (firstSeq: number) => [
  [firstSeq, 1, 'line 1 of attempt 1'] as const,
  [firstSeq + 1, 1, 'line 2 of attempt 1'] as const,
  [firstSeq + 2, 1, 'giving up this attempt'] as const,
];

describeEngine('job logs beside flow control', (t) => {
  it('dependencies: each job keeps its own lines; a dependent cancelled by a failed dependency has none, one that runs on failure has its own', async () => {
    const engine = await t.engine({ threads: 2, progressIntervalMs: 50 });
    const [ok, bad, cancelled, runsAnyway] = await t.store.enqueueMany([
      { kind: 'logLines', payload: { count: 3 } },
      { kind: 'logLines', payload: { count: 2, failUntil: 2 }, maxAttempts: 1 },
      { kind: 'logLines', payload: { count: 4 }, dependsOn: [{ index: 0 }, { index: 1 }] },
      {
        kind: 'asyncLogLines',
        payload: { count: 5 },
        dependsOn: [{ index: 0 }, { index: 1 }],
        onDependencyFailure: 'run',
      },
    ]);
    assert.ok(ok && bad && cancelled && runsAnyway);
    engine.start();
    assert.equal((await finished(t, runsAnyway.id)).status, 'SUCCEEDED');
    assert.equal((await finished(t, cancelled.id)).status, 'CANCELLED');
    assert.equal((await finished(t, bad.id)).status, 'FAILED');
    assert.deepEqual((await linesOf(t, ok.id)).lines, succeededLines(3));
    assert.deepEqual((await linesOf(t, bad.id)).lines, FAILED_ATTEMPT(1));
    assert.deepEqual(await linesOf(t, cancelled.id), { lines: [], dropped: 0 }, 'it never ran');
    assert.deepEqual((await linesOf(t, runsAnyway.id)).lines, succeededLines(5));
  });

  it("a queue's cluster-wide limit of 1: every job's lines are whole, in order, and its own", async () => {
    await t.store.setQueueLimits('one-at-a-time', { concurrency: 1 });
    const engine = await t.engine({ threads: 2, progressIntervalMs: 20 });
    const jobs = await t.store.enqueueMany(
      [10, 20, 30, 40].map((count, i) => ({
        kind: i % 2 === 0 ? 'logLines' : 'asyncLogLines',
        queue: 'one-at-a-time',
        payload: { count },
      })),
    );
    engine.start();
    for (const [i, job] of jobs.entries()) {
      assert.equal((await finished(t, job.id)).status, 'SUCCEEDED');
      assert.deepEqual(await linesOf(t, job.id), { lines: succeededLines(10 * (i + 1)), dropped: 0 });
    }
  });

  it("dedupe windows: an enqueue that returns the window's job adds no lines, and a retry of it appends its own", async () => {
    const engine = await t.engine({ threads: 1, progressIntervalMs: 50 });
    const throttle = { key: 'daily', windowMs: 3_600_000 };
    const first = await t.store.enqueue({
      kind: 'logLines',
      payload: { count: 2, failUntil: 2 },
      maxAttempts: 1,
      throttle,
    });
    const keyed = await t.store.enqueue({ kind: 'logLines', payload: { count: 3 }, idempotencyKey: 'once' });
    engine.start();
    assert.equal((await finished(t, first.id)).status, 'FAILED');
    assert.equal((await finished(t, keyed.id)).status, 'SUCCEEDED');
    const again = await t.store.enqueue({ kind: 'logLines', payload: { count: 9 }, throttle });
    const keyedAgain = await t.store.enqueue({
      kind: 'logLines',
      payload: { count: 9 },
      idempotencyKey: 'once',
    });
    assert.deepEqual([again.id, again.created], [first.id, false], 'the window is open: its job');
    assert.deepEqual([keyedAgain.id, keyedAgain.created], [keyed.id, false]);
    assert.deepEqual((await linesOf(t, first.id)).lines, FAILED_ATTEMPT(1));
    // A retry starts the attempts afresh (attempt 1 again): its lines follow the first run's.
    assert.equal((await engine.retry(first.id)).outcome, 'changed');
    assert.equal((await finished(t, first.id)).status, 'FAILED');
    assert.deepEqual((await linesOf(t, first.id)).lines, [...FAILED_ATTEMPT(1), ...FAILED_ATTEMPT(4)]);
    assert.deepEqual((await linesOf(t, keyed.id)).lines, succeededLines(3));
  });
});

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JobLease } from '@nudge/store';
import { describeEngine, waitForEvent, waitUntil } from '../helpers/index.js';

describeEngine('engine: cancel and retry', (t) => {
  it('cancelling a running job aborts its handler at once on this instance; it ends CANCELLED', async () => {
    const engine = await t.engine();
    engine.start();
    // Listen first: the job may start before the enqueue's promise settles.
    const started = waitForEvent(
      engine,
      'job:started',
      ({ job: s }: { job: { kind: string } }) => s.kind === 'hold',
    );
    const job = await t.store.enqueue({ kind: 'hold', payload: { releaseFile: t.scratch.releaseFile } });
    await started;
    const cancelled = waitForEvent<JobLease>(engine, 'job:cancelled');
    const freed = waitForEvent(engine, 'slot:freed');
    const result = await engine.cancel(job.id);
    assert.equal(result.outcome, 'changed');
    assert.equal((await cancelled).id, job.id);
    await freed;
    const stored = await t.store.getJob(job.id);
    assert.equal(stored?.status, 'CANCELLED');
    assert.equal(stored?.lastError, null, "the aborted attempt's failure is not written");
    assert.equal(stored?.attempts, 1);
  });

  it('a cancelled handler that ignores the signal and returns later changes nothing', async () => {
    const engine = await t.engine({ abortGraceMs: 10_000 });
    engine.start();
    // Listen first: the job may start before the enqueue's promise settles.
    const started = waitForEvent(
      engine,
      'job:started',
      ({ job: s }: { job: { kind: string } }) => s.kind === 'sleepy',
    );
    const job = await t.store.enqueue({ kind: 'sleepy', payload: { ms: 400 } });
    await started;
    const freed = waitForEvent(engine, 'slot:freed');
    await engine.cancel(job.id);
    await freed;
    const stored = await t.store.getJob(job.id);
    assert.equal(stored?.status, 'CANCELLED');
    assert.equal(stored?.result, null, 'the late success was discarded');
  });

  it('a job cancelled through another instance is aborted by its own instance within one heartbeat', async () => {
    const runner = await t.engine({ leaseMs: 900 });
    const other = await t.engine({ leaseMs: 900 });
    runner.start();
    // Listen first: the job may start before the enqueue's promise settles.
    const started = waitForEvent(
      runner,
      'job:started',
      ({ job: s }: { job: { kind: string } }) => s.kind === 'hold',
    );
    const job = await t.store.enqueue({ kind: 'hold', payload: { releaseFile: t.scratch.releaseFile } });
    await started;
    const cancelled = waitForEvent<JobLease>(runner, 'job:cancelled', (lease) => lease.id === job.id);
    const result = await other.cancel(job.id);
    assert.equal(result.outcome, 'changed');
    // Heartbeats the runner completes from now until the abort: one may have begun before the
    // cancel committed; the next one began after it, so it must find the job cancelled (it emits
    // job:cancelled before its heartbeat:done).
    let beats = 0;
    const countBeat = (): void => void (beats += 1);
    runner.on('heartbeat:done', countBeat);
    await cancelled;
    runner.off('heartbeat:done', countBeat);
    assert.ok(beats <= 1, `aborted by the first heartbeat after the cancel (${beats} heartbeats went by)`);
    await waitForEvent(runner, 'slot:freed');
    assert.equal((await t.store.getJob(job.id))?.status, 'CANCELLED');
  });

  it('a cancelled async job that ignores its signal gets its thread terminated; its neighbours are released uncharged', async () => {
    const engine = await t.engine({ asyncThreads: 1, asyncConcurrency: 10, abortGraceMs: 200 });
    engine.start();
    const markerFile = join(t.scratch.dir, 'marker');
    const tallyFile = join(t.scratch.dir, 'tally');
    writeFileSync(tallyFile, '');
    const stubborn = await t.store.enqueue({ kind: 'stubborn', payload: { markerFile } });
    await waitForEvent(engine, 'job:started', ({ job }: { job: { id: number } }) => job.id === stubborn.id);
    const neighbours = await t.store.enqueueMany(
      Array.from({ length: 3 }, () => ({ kind: 'asyncTally', payload: { file: tallyFile, ms: 5000 } })),
    );
    engine.requestClaim();
    await waitUntil(async () => {
      const jobs = await Promise.all(neighbours.map((n) => t.store.getJob(n.id)));
      return jobs.every((job) => job?.status === 'RUNNING') ? true : undefined;
    });
    const released = neighbours.map((n) =>
      waitForEvent<JobLease>(engine, 'job:released', (lease) => lease.id === n.id),
    );
    await engine.cancel(stubborn.id);
    await Promise.all(released);
    assert.equal((await t.store.getJob(stubborn.id))?.status, 'CANCELLED');
    for (const neighbour of neighbours) {
      const job = await waitUntil(async () => {
        const current = await t.store.getJob(neighbour.id);
        return current?.status === 'SUCCEEDED' ? current : undefined;
      }, 20_000);
      assert.equal(job.attempts, 1, 'the interrupted attempt was not charged');
    }
    assert.equal(readFileSync(tallyFile, 'utf8').trim().split('\n').length, 3);
  });

  it('retry runs a failed job again with fresh attempts; cancel of a finished job is refused', async () => {
    const engine = await t.engine();
    engine.start();
    const job = await t.store.enqueue({ kind: 'fail', maxAttempts: 1, payload: { message: 'boom' } });
    await waitForEvent(
      engine,
      'job:failed',
      (f: { id: number; status: string }) => f.id === job.id && f.status === 'FAILED',
    );
    assert.equal((await engine.cancel(job.id)).outcome, 'conflict');
    const again = waitForEvent(
      engine,
      'job:failed',
      (f: { id: number; status: string }) => f.id === job.id && f.status === 'FAILED',
    );
    const retried = await engine.retry(job.id);
    assert.ok(retried.outcome === 'changed');
    assert.equal(retried.job.attempts, 0);
    await again;
    const stored = await t.store.getJob(job.id);
    assert.equal(stored?.attempts, 1, 'the retry had an attempt of its own');
    assert.equal(stored?.status, 'FAILED');
  });

  it('a bulk cancel aborts the running attempts on this instance at once, as the single cancel does', async () => {
    const engine = await t.engine();
    engine.start();
    const started = waitForEvent(
      engine,
      'job:started',
      ({ job: s }: { job: { kind: string } }) => s.kind === 'hold',
    );
    const job = await t.store.enqueue({ kind: 'hold', payload: { releaseFile: t.scratch.releaseFile } });
    await started;
    const cancelled = waitForEvent<JobLease>(engine, 'job:cancelled');
    const done = waitForEvent(engine, 'bulk-command:done');
    const result = await engine.cancelMany({ statuses: ['RUNNING'], kind: 'hold' });
    assert.equal(result.changed, 1);
    assert.deepEqual(await done, {
      command: 'cancel',
      changed: 1,
      groups: [{ kind: 'hold', queue: 'default', changed: 1 }],
    });
    assert.equal((await cancelled).id, job.id);
    const stored = await t.store.getJob(job.id);
    assert.equal(stored?.status, 'CANCELLED');
    assert.equal(stored?.lastError, null, "the aborted attempt's failure is not written");
  });

  it('a bulk retry runs the failed jobs again with fresh attempts', async () => {
    const engine = await t.engine();
    engine.start();
    const jobs = await t.store.enqueueMany(
      [1, 2, 3].map(() => ({ kind: 'fail', maxAttempts: 1, payload: { message: 'boom' } })),
    );
    const failedOnce = new Set<number>();
    await waitForEvent(engine, 'job:failed', (f: { id: number; status: string }) => {
      if (f.status === 'FAILED') failedOnce.add(f.id);
      return failedOnce.size === 3;
    });
    const failedTwice = new Set<number>();
    const again = waitForEvent(engine, 'job:failed', (f: { id: number; status: string }) => {
      if (f.status === 'FAILED') failedTwice.add(f.id);
      return failedTwice.size === 3;
    });
    const result = await engine.retryMany({ status: 'FAILED', kind: 'fail' });
    assert.equal(result.changed, 3);
    await again;
    for (const job of jobs) assert.equal((await t.store.getJob(job.id))?.attempts, 1);
  });
});

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { describeEngine, rawQuery, waitForEvent, waitUntil } from '../helpers/index.js';

describeEngine('engine shutdown and leases', (t) => {
  it('graceful shutdown finishes quick jobs and releases the rest for another instance', async () => {
    // The quick job has at most QUICK_MS left when the shutdown begins; a grace ten times that
    // leaves a wide margin for a loaded machine (and the test waits it out for the held jobs).
    const QUICK_MS = 300;
    const first = await t.engine({ threads: 3, shutdownGraceMs: 10 * QUICK_MS });
    const quick = await t.store.enqueue({ kind: 'sleepy', payload: { ms: QUICK_MS } });
    const stuck = await t.store.enqueueMany([
      { kind: 'hold', payload: { releaseFile: t.scratch.releaseFile } },
      { kind: 'hold', payload: { releaseFile: t.scratch.releaseFile } },
    ]);
    let started = 0;
    first.on('job:started', () => (started += 1));
    first.start();
    await waitUntil(() => (started === 3 ? true : undefined), 10_000, 10, 'three jobs to start');
    await first.stop();
    assert.equal((await t.store.getJob(quick.id))?.status, 'SUCCEEDED', 'finished within the grace period');
    for (const job of stuck) {
      const row = await t.store.getJob(job.id);
      assert.equal(row?.status, 'PENDING');
      assert.equal(row?.version, 2, 'released with a new version');
      assert.equal(row?.attempts, 0, 'the interrupted attempt is not counted');
    }
    t.scratch.release();
    const second = await t.engine({ threads: 2 });
    const done = new Set<number>();
    second.on('job:succeeded', ({ id }) => done.add(id));
    second.start();
    await waitUntil(() => (done.size === 2 ? true : undefined), 10_000, 10, 'released jobs to complete');
    await second.stop();
  });

  it('an attempt that lost its lease is aborted and records nothing', async () => {
    const engine = await t.engine({ threads: 1, leaseMs: 600 });
    const job = await t.store.enqueue({ kind: 'hold', payload: { releaseFile: t.scratch.releaseFile } });
    engine.start();
    await waitForEvent(engine, 'job:started');
    // Another instance took the job over (as after a sweep and a new claim).
    await rawQuery(
      t.db,
      `UPDATE nudge_jobs SET version = version + 1, claimed_by = 'someone-else' WHERE id = ?`,
      [job.id],
    );
    const lost = await waitForEvent<{ id: number }>(engine, 'job:lease-lost');
    assert.equal(lost.id, job.id);
    await waitForEvent(engine, 'slot:freed');
    const row = await t.store.getJob(job.id);
    assert.equal(row?.status, 'RUNNING');
    assert.equal(row?.claimedBy, 'someone-else');
    assert.equal(row?.lastError, null);
    await engine.stop();
  });

  it('the sweep recovers a job whose owner vanished, and it then completes', async () => {
    const job = await t.store.enqueue({ kind: 'echo', payload: { n: 1 } });
    // A worker that claims and then dies: nobody heartbeats this lease.
    const [ghost] = await t.store.claim({
      workerId: 'ghost',
      leaseMs: 300,
      groups: [{ kinds: ['echo'], limit: 1 }],
    });
    assert.equal(ghost?.id, job.id);
    const engine = await t.engine({ threads: 1, sweepIntervalMs: 100 });
    const swept = waitForEvent<{ requeued: number }>(engine, 'sweep:done', (r) => r.requeued === 1);
    engine.start();
    await swept;
    await waitForEvent(engine, 'job:succeeded', (lease: { id: number }) => lease.id === job.id);
    const row = await t.store.getJob(job.id);
    assert.equal(row?.status, 'SUCCEEDED');
    assert.equal(row?.attempts, 2);
    await engine.stop();
  });

  it('a job running past leaseMs is not swept while its heartbeats continue, then succeeds', async () => {
    const leaseMs = 600;
    const engine = await t.engine({ threads: 1, leaseMs, sweepIntervalMs: 60_000 });
    const job = await t.store.enqueue({ kind: 'hold', payload: { releaseFile: t.scratch.releaseFile } });
    const renewed: number[] = [];
    engine.on('heartbeat:done', ({ renewed: count }: { renewed: number }) => renewed.push(count));
    engine.start();
    await waitForEvent(engine, 'job:started');
    const claimed = await t.store.getJob(job.id);
    assert.ok(claimed?.leaseExpiresAt && claimed.startedAt);
    const firstExpiry = claimed.leaseExpiresAt;
    // Heartbeat by heartbeat, until the database clock is well past the first lease.
    while ((await t.store.now()).getTime() <= firstExpiry.getTime() + leaseMs) {
      await waitForEvent(engine, 'heartbeat:done');
    }
    const sweep = await engine.sweepOnce();
    assert.deepEqual({ requeued: sweep.requeued, failed: sweep.failed }, { requeued: 0, failed: 0 });
    const running = await t.store.getJob(job.id);
    assert.equal(running?.status, 'RUNNING');
    assert.equal(running?.version, claimed.version, 'the same claim holds the job');
    assert.equal(running?.claimedBy, engine.options.workerId);
    assert.ok(
      running?.leaseExpiresAt && running.leaseExpiresAt > (await t.store.now()),
      'the lease was renewed past now',
    );
    assert.ok(renewed.filter((count) => count === 1).length >= 2, `renewals: ${renewed.join(', ')}`);
    const succeeded = waitForEvent<{ id: number; version: number }>(
      engine,
      'job:succeeded',
      (lease) => lease.id === job.id,
    );
    t.scratch.release();
    assert.equal((await succeeded).version, claimed.version);
    const done = await t.store.getJob(job.id);
    assert.equal(done?.status, 'SUCCEEDED');
    assert.equal(done?.attempts, 1, 'one attempt, never interrupted');
    assert.ok(
      done?.finishedAt && done.finishedAt.getTime() - claimed.startedAt.getTime() > 2 * leaseMs,
      'it ran for more than two leases',
    );
  });
});

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClaimInput, ClaimedJob, Store } from '@nudge/store';
import { describeEngine, rawQuery, waitForEvent, waitUntil } from '../helpers/index.js';

describeEngine('engine: async kinds share a thread', (t) => {
  it('runs 100 async jobs at once on one thread, and never claims beyond the free slots of a class', async () => {
    const capacity = 100;
    const jobs = 250;
    const events = join(t.scratch.dir, 'events');
    writeFileSync(events, '');
    // The store, seen from outside: at every claim, the RUNNING rows this instance holds.
    const checks: Array<{
      claimed: number;
      limit: number;
      runningInDb: number;
      inHandlers: number;
      unwritten: number;
    }> = [];
    let written = 0;
    const claim = t.store.claim.bind(t.store);
    const spyClaim = async (input: ClaimInput): Promise<ClaimedJob[]> => {
      const claimed = await claim(input);
      // Outcomes keep landing while the count runs: compare against the writes seen before it
      // and the handler ends seen after it, a bound that holds at the instant of the count.
      const writtenBefore = written;
      const [row] = await rawQuery<{ n: number | string }>(
        t.db,
        `SELECT count(*) AS n FROM nudge_jobs WHERE status = 'RUNNING' AND claimed_by = ?`,
        [input.workerId],
      );
      const lines = readFileSync(events, 'utf8').split('\n');
      const starts = lines.filter((l) => l.startsWith('start')).length;
      const ends = lines.filter((l) => l.startsWith('end')).length;
      checks.push({
        claimed: claimed.length,
        limit: input.groups.find((g) => g.kinds.includes('overlap'))?.limit ?? 0,
        runningInDb: Number(row?.n),
        inHandlers: starts - ends,
        unwritten: ends - writtenBefore,
      });
      return claimed;
    };
    const spy = new Proxy(t.store, {
      get: (target, key: keyof Store): unknown => {
        if (key === 'claim') return spyClaim;
        const value: unknown = Reflect.get(target, key);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const engine = await t.engine({
      store: spy,
      threads: 1,
      asyncThreads: 1,
      asyncConcurrency: capacity,
      maxClaimBatch: 500,
    });
    engine.on('job:succeeded', () => (written += 1));
    await t.store.enqueueMany(
      Array.from({ length: jobs }, () => ({ kind: 'overlap', payload: { ms: 300, events } })),
    );
    engine.start();
    await waitUntil(
      async () => ((await t.store.countByStatus()).SUCCEEDED === jobs ? true : undefined),
      30_000,
    );
    const results = await rawQuery<{ result: string | object }>(t.db, `SELECT result FROM nudge_jobs`);
    const parsed = results.map(
      (r) =>
        (typeof r.result === 'string' ? JSON.parse(r.result) : r.result) as {
          threadId: number;
          alongside: number;
        },
    );
    assert.equal(new Set(parsed.map((r) => r.threadId)).size, 1, 'one async thread ran them all');
    assert.equal(Math.max(...parsed.map((r) => r.alongside)), capacity, 'they overlapped, up to the limit');
    assert.ok(checks.length >= 3, `claims ran in waves (${checks.length})`);
    for (const check of checks) {
      assert.ok(check.limit <= capacity, `a claim asked for ${check.limit} > ${capacity} slots`);
      assert.ok(check.inHandlers <= capacity, `${check.inHandlers} handlers ran at once`);
      // Rows whose handler ended but whose outcome is still being written hold no slot.
      assert.ok(
        check.runningInDb - check.unwritten <= capacity,
        `RUNNING rows of the instance after a claim: ${JSON.stringify(check)}`,
      );
    }
    assert.equal(
      checks.reduce((sum, c) => sum + c.claimed, 0),
      jobs,
      'each job claimed once',
    );
  });

  it('terminates a thread whose async job ignores its abort signal; its neighbours are released uncharged and succeed', async () => {
    const engine = await t.engine({
      threads: 1,
      asyncThreads: 1,
      asyncConcurrency: 10,
      jobTimeoutMs: 3000,
      abortGraceMs: 200,
      leaseMs: 900,
    });
    const markerFile = join(t.scratch.dir, 'stubborn-thread');
    const stubborn = await t.store.enqueue({ kind: 'stubborn', payload: { markerFile }, maxAttempts: 1 });
    engine.start();
    await waitUntil(() => (readFileSync(markerFile, { flag: 'a+' }).length > 0 ? true : undefined), 10_000);
    // Start the neighbours well after the stubborn job, so that their own timeout is far off
    // when its thread is terminated: three heartbeats apart (at least 600 ms).
    for (let i = 0; i < 3; i += 1) await waitForEvent(engine, 'heartbeat:done');
    const neighbours = await t.store.enqueueMany(
      Array.from({ length: 4 }, () => ({
        kind: 'asyncHold',
        payload: { releaseFile: t.scratch.releaseFile },
      })),
    );
    const released = new Set<number>();
    engine.on('job:released', ({ id }) => released.add(id));
    const started = new Set<number>();
    engine.on('job:started', ({ job }) => started.add(job.id));
    engine.requestClaim();
    await waitUntil(() => (neighbours.every((n) => started.has(n.id)) ? true : undefined), 10_000);
    const failed = await waitForEvent<{ id: number; status: string; error: string }>(
      engine,
      'job:failed',
      (e) => e.id === stubborn.id,
      10_000,
    );
    assert.equal(failed.status, 'FAILED');
    assert.match(
      failed.error,
      /timed out after 3000 ms and ignored its abort signal; the handler's thread was terminated/,
    );
    await waitUntil(() => (neighbours.every((n) => released.has(n.id)) ? true : undefined), 10_000);
    for (const neighbour of neighbours) {
      const row = await t.store.getJob(neighbour.id);
      assert.ok(
        row?.status === 'PENDING' || row?.status === 'RUNNING',
        `neighbour is back in the queue: ${row?.status}`,
      );
      assert.equal(row.lastError, null, 'a released neighbour records no error');
    }
    t.scratch.release();
    await waitUntil(async () => {
      const rows = await Promise.all(neighbours.map((n) => t.store.getJob(n.id)));
      return rows.every((r) => r?.status === 'SUCCEEDED') ? rows : undefined;
    }, 15_000).then((rows) => {
      for (const row of rows) assert.equal(row?.attempts, 1, 'the interrupted attempt was not charged');
    });
    const final = await t.store.getJob(stubborn.id);
    assert.equal(final?.status, 'FAILED');
    assert.equal(final?.attempts, 1);
  });

  it('a job that exits its thread after it returned blames nobody: its neighbours are released uncharged', async () => {
    const engine = await t.engine({ threads: 1, asyncThreads: 1, asyncConcurrency: 10 });
    const neighbours = await t.store.enqueueMany(
      Array.from({ length: 4 }, () => ({
        kind: 'asyncHold',
        payload: { releaseFile: t.scratch.releaseFile },
      })),
    );
    const started = new Set<number>();
    engine.on('job:started', ({ job }) => started.add(job.id));
    const released = new Set<number>();
    engine.on('job:released', ({ id }) => released.add(id));
    engine.start();
    await waitUntil(() => (neighbours.every((n) => started.has(n.id)) ? true : undefined), 10_000);
    const lost = waitForEvent<{ attempts: number }>(engine, 'thread:lost');
    const exiting = await t.store.enqueue({ kind: 'asyncExitAfterReturn' });
    engine.requestClaim();
    assert.equal((await lost).attempts, neighbours.length, 'the neighbours were on the thread');
    await waitUntil(() => (neighbours.every((n) => released.has(n.id)) ? true : undefined), 10_000);
    t.scratch.release();
    const rows = await waitUntil(async () => {
      const all = await Promise.all([...neighbours, exiting].map((n) => t.store.getJob(n.id)));
      return all.every((r) => r?.status === 'SUCCEEDED') ? all : undefined;
    }, 15_000);
    for (const row of rows) {
      assert.equal(row?.attempts, 1, `job ${row?.id} was not charged an attempt`);
      assert.deepEqual(row.errors, [], `job ${row.id} records no error`);
    }
  });
});

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readlinkSync } from 'node:fs';
import { getPriority } from 'node:os';
import type { ClaimInput, ClaimedJob, Store } from '@nudge/store';
import { ClaimWatch, describeEngine, waitForEvent, waitUntil } from '../helpers/index.js';

describeEngine('engine slots and claim coalescing', (t) => {
  it('never claims more jobs than the free slots of each class, and no query runs at zero', async () => {
    const engine = await t.engine({
      threads: 2,
      asyncThreads: 1,
      asyncConcurrency: 1,
      pollIntervalMs: 50,
    });
    const hold = { releaseFile: t.scratch.releaseFile };
    const jobs = await t.store.enqueueMany([
      ...Array.from({ length: 3 }, () => ({ kind: 'hold', payload: hold })),
      ...Array.from({ length: 2 }, () => ({ kind: 'asyncHold', payload: hold })),
    ]);
    let queries = 0;
    engine.on('claim:query', () => (queries += 1));
    const started: number[] = [];
    engine.on('job:started', ({ job }) => started.push(job.id));
    engine.start();
    await waitUntil(() => (started.length === 3 ? true : undefined), 10_000, 10, 'three jobs to start');
    const queriesWhenFull = queries;
    for (let i = 0; i < 100; i += 1) engine.requestClaim();
    // Several poll intervals pass with every slot of both classes held: the scheduler runs once
    // per poll interval, as the claimer's poll does.
    for (let i = 0; i < 4; i += 1) await waitForEvent(engine, 'schedule:done');
    assert.equal(queries, queriesWhenFull, 'no claim query while every slot is busy');
    assert.equal(engine.freeSlots, 0);
    assert.deepEqual(engine.slots, { cpu: { total: 2, free: 0 }, async: { total: 1, free: 0 } });
    const waiting = jobs.filter((j) => !started.includes(j.id));
    assert.deepEqual(await Promise.all(waiting.map(async (j) => (await t.store.getJob(j.id))?.kind)), [
      'hold',
      'asyncHold',
    ]);
    for (const job of waiting) assert.equal((await t.store.getJob(job.id))?.status, 'PENDING');
    const done = new Set<number>();
    engine.on('job:succeeded', ({ id }) => done.add(id));
    t.scratch.release();
    await waitUntil(() => (done.size === 5 ? true : undefined), 10_000, 10, 'all five jobs');
    assert.equal(started.length, 5);
  });

  it('1,000 nudges in a burst cause at most two claim queries', async () => {
    const engine = await t.engine({ threads: 2, pollIntervalMs: 60_000, listen: false });
    const claims = new ClaimWatch(engine);
    engine.start();
    // The start's claims have answered and none is owed.
    await claims.settled();
    const before = claims.queries;
    for (let i = 0; i < 1000; i += 1) engine.requestClaim();
    await claims.settled(before + 1);
    const queries = claims.queries - before;
    assert.ok(queries >= 1 && queries <= 2, `expected 1 or 2 claim queries, got ${queries}`);
  });

  it('a wake that finds every slot held by a claim in flight is not lost', async () => {
    // The claim in flight saw no job; one is inserted and a wake requested before it answers. The
    // wake finds no free slot (the pass holds them all), so the pass must claim again once it
    // gives its slots back; otherwise the job would wait for the poll, a minute away.
    let armed = false;
    const claim = t.store.claim.bind(t.store);
    const spy = new Proxy(t.store, {
      get: (target, key: keyof Store): unknown => {
        if (key === 'claim') {
          return async (input: ClaimInput): Promise<ClaimedJob[]> => {
            const jobs = await claim(input);
            if (armed) {
              armed = false;
              await t.store.enqueue({ kind: 'noop' });
              engine.requestClaim();
            }
            return jobs;
          };
        }
        const value: unknown = Reflect.get(target, key);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const engine = await t.engine({ store: spy, threads: 1, pollIntervalMs: 60_000, listen: false });
    engine.start();
    await waitForEvent(engine, 'claim:empty');
    armed = true;
    const started = waitForEvent(engine, 'job:started', () => true, 5000);
    engine.requestClaim();
    await started;
  });

  it('a freed slot claims the next job at once, without waiting for the poll', async () => {
    const engine = await t.engine({ threads: 1, pollIntervalMs: 60_000 });
    await t.store.enqueueMany(Array.from({ length: 5 }, () => ({ kind: 'noop' })));
    const done: number[] = [];
    engine.on('job:succeeded', ({ id }) => done.push(id));
    engine.start();
    await waitUntil(() => (done.length === 5 ? true : undefined), 10_000, 10, 'five jobs through one slot');
  });

  it('enqueue through the engine starts the job in the insert when a slot is free, without a claim query', async () => {
    // No listener: its wake on connecting would be a claim query of its own.
    const engine = await t.engine({ threads: 1, pollIntervalMs: 60_000, listen: false });
    engine.start();
    await waitForEvent(engine, 'claim:empty');
    let queries = 0;
    engine.on('claim:query', () => (queries += 1));
    const started = waitForEvent<{ job: { id: number } }>(engine, 'job:started');
    const job = await engine.enqueue({ kind: 'echo', payload: { n: 1 } });
    assert.equal(job.status, 'RUNNING');
    assert.equal(job.claimedBy, engine.options.workerId);
    assert.equal((await started).job.id, job.id, 'handed to a thread right after the insert');
    const done = await waitForEvent<{ id: number; version: number }>(
      engine,
      'job:succeeded',
      (lease) => lease.id === job.id,
    );
    assert.equal(done.version, 1);
    assert.equal(queries, 0, 'no claim round trip');
  });

  it('enqueue through the engine with an existing idempotency key returns that job and starts nothing', async () => {
    const engine = await t.engine({ threads: 1, pollIntervalMs: 60_000, listen: false });
    const claims = new ClaimWatch(engine);
    engine.start();
    await claims.settled();
    const runs: number[] = [];
    engine.on('job:started', ({ job }: { job: { id: number } }) => runs.push(job.id));
    const first = await engine.enqueue({ kind: 'echo', idempotencyKey: 'k1' });
    assert.equal(first.created, true);
    await waitForEvent<{ id: number }>(engine, 'job:succeeded', (lease) => lease.id === first.id);
    const again = await engine.enqueue({ kind: 'echo', idempotencyKey: 'k1' });
    assert.equal(again.created, false);
    assert.equal(again.id, first.id);
    assert.equal(again.status, 'SUCCEEDED');
    // The repeat gives its slot back and requests a claim, which holds the slot until it answers.
    await claims.settled();
    assert.deepEqual(engine.slots.cpu, { total: 1, free: 1 }, 'the slot held for the insert was given back');
    // One slot, taken in order: had the repeat started anything, it would run before this job.
    const next = await engine.enqueue({ kind: 'echo', idempotencyKey: 'k2' });
    await waitForEvent<{ id: number }>(engine, 'job:succeeded', (lease) => lease.id === next.id);
    assert.deepEqual(runs, [first.id, next.id], 'the repeat started nothing');
  });

  it('enqueue through the engine does not jump a due job that should run first', async () => {
    const engine = await t.engine({ threads: 1, pollIntervalMs: 60_000 });
    engine.start();
    await waitForEvent(engine, 'claim:empty');
    // Written behind the engine's back (no nudge, polls a minute apart): due and waiting.
    const waiting = await t.store.enqueue({ kind: 'echo' });
    const started: number[] = [];
    engine.on('job:started', ({ job }) => started.push(job.id));
    const queued = await engine.enqueue({ kind: 'echo' });
    assert.equal(queued.status, 'PENDING', 'a due job of the same class comes first');
    assert.equal(queued.claimedBy, null);
    await waitUntil(async () =>
      (await t.store.getJob(queued.id))?.status === 'SUCCEEDED' ? true : undefined,
    );
    assert.deepEqual(started, [waiting.id, queued.id], 'claimed in order, one slot at a time');
  });

  it('runs cpu threads at a lower priority than the main thread, async threads at the same', async (test) => {
    if (process.platform !== 'linux') return test.skip('thread priorities are set on Linux only');
    const engine = await t.engine({ cpuThreadNice: 7 });
    engine.start();
    const [cpu, async] = await Promise.all([
      engine.enqueue({ kind: 'ownNice' }),
      engine.enqueue({ kind: 'asyncOwnNice' }),
    ]);
    const results = await waitUntil(async () => {
      const jobs = await Promise.all([t.store.getJob(cpu.id), t.store.getJob(async.id)]);
      return jobs.every((j) => j?.status === 'SUCCEEDED') ? jobs.map((j) => j?.result) : undefined;
    });
    const main = getPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()));
    assert.deepEqual(results, [{ nice: Math.min(19, main + 7) }, { nice: main }]);
  });
});

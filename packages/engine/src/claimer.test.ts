import { afterEach, beforeEach, describe, it } from 'node:test';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { silentLogger } from '@nudge/core';
import type { ClaimedJob, Store } from '@nudge/store';
import { DIALECTS, createMigratedDatabase, openStore, type TestDatabase } from '@nudge/test-databases';
import { Claimer } from './claimer.js';
import type { EngineEvents } from './engine-events.js';
import { EVERY_QUEUE, resolveQueueServing } from './queue-serving.js';

/** A claimer on `store` for kind `k` with `slots` cpu slots; claimed jobs keep their slots. */
function createClaimer(
  store: Store,
  slots: number,
  maxClaimBatch: number,
  claimCooldownMs = 0,
  leaseMs = 60_000,
) {
  let free = slots;
  const limits: number[] = [];
  const answers: number[] = [];
  const started: ClaimedJob[] = [];
  const claimer = new Claimer({
    store,
    logger: silentLogger,
    emit: (name, value) => {
      if (name === 'claim:query') limits.push((value as EngineEvents['claim:query']).limit);
      if (name === 'claim:claimed' || name === 'claim:empty') {
        answers.push((value as EngineEvents['claim:claimed']).count);
      }
    },
    workerId: 'w1',
    leaseMs,
    claimCooldownMs,
    maxClaimBatch,
    kinds: new Map([['cpu', ['k']]]),
    free: () => free,
    reserve: (_execution, count) => {
      const held = Math.min(free, count);
      free -= held;
      return held;
    },
    unreserve: (_execution, count) => void (free += count),
    serving: resolveQueueServing(EVERY_QUEUE),
    reserveQueue: (_queue, _cap, count) => count,
    unreserveQueue: () => undefined,
    start: (jobs) => void started.push(...jobs),
    classOf: () => 'cpu',
    onWorkSign: () => undefined,
  });
  return {
    claimer,
    /** The limit of each claim query, in order. */
    limits,
    /** Jobs each query returned, in order. */
    answers,
    started,
    /** Frees `count` slots, as ended attempts do. */
    freeSlots(count: number) {
      free += count;
      claimer.slotsFreed('cpu');
    },
    get free() {
      return free;
    },
  };
}

for (const dialect of DIALECTS) {
  describe(`Claimer: ${dialect}`, () => {
    let db: TestDatabase;
    let store: Store;
    let stop: () => void = () => undefined;
    beforeEach(async () => {
      db = await createMigratedDatabase(dialect);
      store = await openStore(db);
    });
    afterEach(async () => {
      stop();
      await store.close();
      await db.drop();
    });

    it('runs no query while no slot is free, however often asked', async () => {
      await store.enqueueMany(Array.from({ length: 3 }, () => ({ kind: 'k' })));
      const c = createClaimer(store, 0, 10);
      stop = () => void c.claimer.stop();
      c.claimer.start();
      for (let i = 0; i < 100; i += 1) c.claimer.request();
      await c.claimer.idle();
      assert.deepEqual(await c.claimer.runOnce(), { claimed: 0, limit: 0 });
      assert.deepEqual(c.limits, [], 'no claim query');
      assert.deepEqual(c.claimer.requestCounts, { requested: 0, coalesced: 0 });
      assert.equal((await store.countByStatus()).PENDING, 3);
      c.freeSlots(2);
      await c.claimer.idle();
      assert.deepEqual(c.limits, [2], 'a freed slot claims at once, within the free slots');
      assert.deepEqual(c.answers, [2]);
      assert.equal((await store.countByStatus()).RUNNING, 2);
    });

    it('claims again at once after a full batch, until one comes back short', async () => {
      const jobs = await store.enqueueMany(Array.from({ length: 5 }, () => ({ kind: 'k' })));
      const c = createClaimer(store, 10, 2);
      stop = () => void c.claimer.stop();
      c.claimer.start();
      await c.claimer.idle();
      assert.deepEqual(c.limits, [2, 2, 2], 'three queries for one request');
      assert.deepEqual(c.answers, [2, 2, 1]);
      assert.deepEqual(c.claimer.requestCounts, { requested: 1, coalesced: 0 });
      assert.deepEqual(
        c.started.map((job) => job.id),
        jobs.map((job) => job.id),
        'in claim order',
      );
      assert.equal(c.free, 5);
    });

    it('a batch that fills every free slot waits for a freed slot, which claims the rest', async () => {
      await store.enqueueMany(Array.from({ length: 5 }, () => ({ kind: 'k' })));
      const c = createClaimer(store, 3, 10);
      stop = () => void c.claimer.stop();
      c.claimer.start();
      await c.claimer.idle();
      assert.deepEqual(c.limits, [3], 'no second query with no slot left');
      c.freeSlots(3);
      await c.claimer.idle();
      assert.deepEqual(c.limits, [3, 3]);
      assert.deepEqual(c.answers, [3, 2]);
    });

    it('a storm of requests over an empty queue runs two queries, then waits out the cooldown', async () => {
      const c = createClaimer(store, 10, 10, 60_000);
      stop = () => void c.claimer.stop();
      c.claimer.start();
      await c.claimer.idle();
      c.claimer.request();
      await c.claimer.idle();
      assert.deepEqual(c.answers, [0, 0], 'two empty queries');
      for (let i = 0; i < 200; i += 1) {
        c.claimer.request();
        await nextTurn();
      }
      assert.equal(c.limits.length, 2, '200 requests in the cooldown ran no query');
      assert.deepEqual(c.claimer.requestCounts, { requested: 202, coalesced: 199 });
      await c.claimer.stop();
      await c.claimer.idle();
      assert.equal(c.limits.length, 2, 'stop cancels the deferred pass');
    });

    it('the pass that waited out the cooldown claims what arrived meanwhile', async () => {
      const c = createClaimer(store, 10, 10, 50);
      stop = () => void c.claimer.stop();
      c.claimer.start();
      await c.claimer.idle();
      c.claimer.request();
      await c.claimer.idle();
      const [job] = await store.enqueueMany([{ kind: 'k' }]);
      c.claimer.request();
      assert.equal(c.limits.length, 2, 'deferred');
      await c.claimer.idle();
      assert.deepEqual(c.answers, [0, 0, 1]);
      assert.deepEqual(
        c.started.map((started) => started.id),
        [job!.id],
      );
    });

    it('a claim answered after a heartbeat interval starts only the jobs whose leases still hold', async () => {
      const leaseMs = 300;
      const ids = (await store.enqueueMany([{ kind: 'k' }, { kind: 'k' }])).map((job) => job.id);
      const claim = store.claim.bind(store);
      let takenOver: number | undefined;
      // While the answer is held up (as for a process stopped with its claim in flight), one
      // job's lease lapses and another instance claims it under a newer version.
      store.claim = async (input) => {
        const claimed = await claim(input);
        const later = new Date(Date.now() + 10 * leaseMs);
        const swept = await store.sweepExpired({ retryDelayMs: () => 0, limit: 1, now: later });
        assert.equal(swept.requeued, 1);
        const [other] = await claim({
          workerId: 'w2',
          leaseMs,
          groups: [{ kinds: ['k'], limit: 1 }],
          now: later,
        });
        takenOver = other?.id;
        await sleep(leaseMs / 3 + 50);
        return claimed;
      };
      const c = createClaimer(store, 10, 10, 0, leaseMs);
      stop = () => void c.claimer.stop();
      c.claimer.start();
      await c.claimer.idle();
      const kept = ids.filter((id) => id !== takenOver);
      assert.equal(kept.length, 1, 'another instance took one job over');
      assert.deepEqual(
        c.started.map((job) => job.id),
        kept,
      );
      assert.deepEqual(c.answers, [1]);
      assert.equal(c.free, 9, 'the slot of the job not started is free again');
      const job = await store.getJob(kept[0]!);
      assert.equal(job?.status, 'RUNNING');
    });
  });
}

import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Engine } from '@nudge/engine';
import type { Store } from '@nudge/store';
import {
  DIALECTS,
  createEngine,
  createScratch,
  createTestDatabase,
  openStore,
  waitForEvent,
  waitUntil,
  type Scratch,
  type TestDatabase,
} from '../helpers/index.js';

for (const dialect of DIALECTS) {
  describe(`engine slots and claim coalescing: ${dialect}`, () => {
    let db: TestDatabase;
    let store: Store;
    let engine: Engine | undefined;
    let scratch: Scratch;

    beforeEach(async () => {
      db = await createTestDatabase(dialect);
      store = await openStore(db);
      scratch = createScratch();
    });
    afterEach(async () => {
      scratch.release();
      await engine?.stop();
      engine = undefined;
      await store.close();
      await db.drop();
      scratch.remove();
    });

    it('never claims more jobs than free slots, and no query runs at zero', async () => {
      engine = await createEngine(store, { threads: 2, pollIntervalMs: 50 });
      const jobs = await store.enqueueMany(
        Array.from({ length: 3 }, () => ({ kind: 'hold', payload: { releaseFile: scratch.releaseFile } })),
      );
      let queries = 0;
      engine.on('claim:query', () => (queries += 1));
      const started: number[] = [];
      engine.on('job:started', ({ job }) => started.push(job.id));
      engine.start();
      await waitUntil(() => (started.length === 2 ? true : undefined), 10_000, 10, 'two jobs to start');
      const queriesWhenFull = queries;
      for (let i = 0; i < 100; i += 1) engine.requestClaim();
      // Several poll intervals pass with both slots held.
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(queries, queriesWhenFull, 'no claim query while every slot is busy');
      assert.equal(engine.freeSlots, 0);
      const third = jobs.find((j) => !started.includes(j.id));
      assert.equal((await store.getJob(third?.id ?? -1))?.status, 'PENDING');
      const done = new Set<number>();
      engine.on('job:succeeded', ({ id }) => done.add(id));
      scratch.release();
      await waitUntil(() => (done.size === 3 ? true : undefined), 10_000, 10, 'all three jobs');
      assert.equal(started.length, 3);
    });

    it('1,000 nudges in a burst cause at most two claim queries', async () => {
      engine = await createEngine(store, { threads: 2, pollIntervalMs: 60_000 });
      engine.start();
      await waitForEvent(engine, 'claim:empty');
      let queries = 0;
      engine.on('claim:query', () => (queries += 1));
      const idle = waitForEvent(engine, 'claim:empty');
      for (let i = 0; i < 1000; i += 1) engine.requestClaim();
      await idle;
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.ok(queries >= 1 && queries <= 2, `expected 1 or 2 claim queries, got ${queries}`);
    });

    it('a freed slot claims the next job at once, without waiting for the poll', async () => {
      engine = await createEngine(store, { threads: 1, pollIntervalMs: 60_000 });
      await store.enqueueMany(Array.from({ length: 5 }, () => ({ kind: 'noop' })));
      const done: number[] = [];
      engine.on('job:succeeded', ({ id }) => done.push(id));
      engine.start();
      await waitUntil(() => (done.length === 5 ? true : undefined), 10_000, 10, 'five jobs through one slot');
    });
  });
}

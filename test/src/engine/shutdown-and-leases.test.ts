import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '@nudge/store';
import {
  DIALECTS,
  createEngine,
  createScratch,
  createTestDatabase,
  openStore,
  rawQuery,
  waitForEvent,
  waitUntil,
  type Scratch,
  type TestDatabase,
} from '../helpers/index.js';

for (const dialect of DIALECTS) {
  describe(`engine shutdown and leases: ${dialect}`, () => {
    let db: TestDatabase;
    let store: Store;
    let scratch: Scratch;

    beforeEach(async () => {
      db = await createTestDatabase(dialect);
      store = await openStore(db);
      scratch = createScratch();
    });
    afterEach(async () => {
      scratch.release();
      await store.close();
      await db.drop();
      scratch.remove();
    });

    it('graceful shutdown finishes quick jobs and releases the rest for another instance', async () => {
      const first = await createEngine(store, { threads: 3, shutdownGraceMs: 400 });
      const quick = await store.enqueue({ kind: 'sleepy', payload: { ms: 100 } });
      const stuck = await store.enqueueMany([
        { kind: 'hold', payload: { releaseFile: scratch.releaseFile } },
        { kind: 'hold', payload: { releaseFile: scratch.releaseFile } },
      ]);
      let started = 0;
      first.on('job:started', () => (started += 1));
      first.start();
      await waitUntil(() => (started === 3 ? true : undefined), 10_000, 10, 'three jobs to start');
      await first.stop();
      assert.equal((await store.getJob(quick.id))?.status, 'SUCCEEDED', 'finished within the grace period');
      for (const job of stuck) {
        const row = await store.getJob(job.id);
        assert.equal(row?.status, 'PENDING');
        assert.equal(row?.version, 2, 'released with a new version');
        assert.equal(row?.attempts, 0, 'the interrupted attempt is not counted');
      }
      scratch.release();
      const second = await createEngine(store, { threads: 2 });
      const done = new Set<number>();
      second.on('job:succeeded', ({ id }) => done.add(id));
      second.start();
      await waitUntil(() => (done.size === 2 ? true : undefined), 10_000, 10, 'released jobs to complete');
      await second.stop();
    });

    it('an attempt that lost its lease is aborted and records nothing', async () => {
      const engine = await createEngine(store, { threads: 1, leaseMs: 600 });
      const job = await store.enqueue({ kind: 'hold', payload: { releaseFile: scratch.releaseFile } });
      engine.start();
      await waitForEvent(engine, 'job:started');
      // Another instance took the job over (as after a sweep and a new claim).
      await rawQuery(
        db,
        `UPDATE nudge_jobs SET version = version + 1, claimed_by = 'someone-else' WHERE id = ?`,
        [job.id],
      );
      const lost = await waitForEvent<{ id: number }>(engine, 'job:lease-lost');
      assert.equal(lost.id, job.id);
      await waitForEvent(engine, 'slot:freed');
      const row = await store.getJob(job.id);
      assert.equal(row?.status, 'RUNNING');
      assert.equal(row?.claimedBy, 'someone-else');
      assert.equal(row?.lastError, null);
      await engine.stop();
    });

    it('the sweep recovers a job whose owner vanished, and it then completes', async () => {
      const job = await store.enqueue({ kind: 'echo', payload: { n: 1 } });
      // A worker that claims and then dies: nobody heartbeats this lease.
      const [ghost] = await store.claim({ workerId: 'ghost', limit: 1, leaseMs: 300 });
      assert.equal(ghost?.id, job.id);
      const engine = await createEngine(store, { threads: 1, sweepIntervalMs: 100 });
      const swept = waitForEvent<{ requeued: number }>(engine, 'sweep:done', (r) => r.requeued === 1);
      engine.start();
      await swept;
      await waitForEvent(engine, 'job:succeeded', (lease: { id: number }) => lease.id === job.id);
      const row = await store.getJob(job.id);
      assert.equal(row?.status, 'SUCCEEDED');
      assert.equal(row?.attempts, 2);
      await engine.stop();
    });
  });
}

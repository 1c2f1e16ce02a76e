// A job made runnable by an UPDATE (a retry, the sweep's requeue, a promotion, a change by hand)
// wakes listening instances as an INSERT of a runnable job does, on both dialects.
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { NewJobsListener, Store } from '@nudge/store';
import {
  DIALECTS,
  createMigratedDatabase,
  openStore,
  rawQuery,
  type TestDatabase,
} from '../helpers/index.js';
import { later } from './store-fixture.js';

/** How long a wake may take, in ms: SQLite's watcher reads every 250 ms. */
const WAKE_WITHIN_MS = 5_000;

for (const dialect of DIALECTS) {
  describe(`store: an UPDATE that makes a job runnable wakes listeners: ${dialect}`, () => {
    let db: TestDatabase;
    let listening: Store;
    let writer: Store;
    let listener: NewJobsListener | undefined;
    let wakes = 0;

    beforeEach(async () => {
      db = await createMigratedDatabase(dialect);
      writer = await openStore(db);
      listening = await openStore(db);
      wakes = 0;
      const ready = new Promise<void>((resolve) => {
        listener = listening.listenForNewJobs?.({ onWake: () => (wakes += 1), onReady: () => resolve() });
      });
      // The listeners' timers are unref'd: keep the process up until the first read or LISTEN.
      const keepAlive = setInterval(() => undefined, 20);
      await ready;
      clearInterval(keepAlive);
    });
    afterEach(async () => {
      await listener?.close();
      await listening.close();
      await writer.close();
      await db.drop();
    });

    /** Runs `write` once the wakes so far have settled; resolves once a wake follows it. */
    async function wakesAfter(what: string, write: () => Promise<unknown>): Promise<void> {
      await new Promise((resolve) => setTimeout(resolve, 400));
      const before = wakes;
      await write();
      const deadline = Date.now() + WAKE_WITHIN_MS;
      while (wakes === before) {
        if (Date.now() > deadline) assert.fail(`${what}: no wake within ${WAKE_WITHIN_MS} ms`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }

    it('a retry of a failed job, the sweep requeue and a promotion by another instance', async () => {
      const failed = await writer.enqueue({ kind: 'k', maxAttempts: 2 });
      const [claimed] = await writer.claim({
        workerId: 'w',
        leaseMs: 1000,
        groups: [{ kinds: ['k'], limit: 1 }],
      });
      assert.ok(claimed);
      await writer.fail([
        { id: claimed.id, version: claimed.version, error: 'x', retryDelayMs: 0, permanent: true },
      ]);
      await wakesAfter('retry', () => writer.retryJob(failed.id));

      const [again] = await writer.claim({
        workerId: 'w',
        leaseMs: 1000,
        groups: [{ kinds: ['k'], limit: 1 }],
      });
      assert.ok(again);
      const expired = later(await writer.now(), 5_000);
      await wakesAfter('sweep', () => writer.sweepExpired({ retryDelayMs: () => 0, now: expired }));

      const scheduled = await writer.enqueue({ kind: 'k', delayMs: 1 });
      assert.equal(scheduled.status, 'SCHEDULED');
      const due = later(await writer.now(), 1_000);
      await wakesAfter('promotion', () => writer.promoteScheduled({ now: due }));
    });

    it('a change by hand, as a producer in another language would make it', async () => {
      const job = await writer.enqueue({ kind: 'k', delayMs: 60_000 });
      await wakesAfter('by hand', () =>
        rawQuery(db, `UPDATE nudge_jobs SET status = 'PENDING' WHERE id = ?`, [job.id]),
      );
    });
  });
}

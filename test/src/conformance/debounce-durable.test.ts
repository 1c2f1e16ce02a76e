// Debounce beside durable steps, on both dialects: the job that waits under a debounce key is the
// one that never started. A signal sent to it before it starts leaves it its key's waiting job (a
// later enqueue under the key replaces it); a job asleep in its first attempt (SCHEDULED with
// attempts 0, a sleep being uncharged) is not (a later enqueue adds a job, and the sleeper keeps
// its payload and wake-up time).
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonValue } from '@nudge/core';
import type { Store } from '@nudge/store';
import { createMigratedDatabase, DIALECTS, openStore, type TestDatabase } from '../helpers/index.js';

for (const dialect of DIALECTS) {
  describe(`store: debounce and durable steps: ${dialect}`, () => {
    let db: TestDatabase;
    let store: Store;
    beforeEach(async () => {
      db = await createMigratedDatabase(dialect);
      store = await openStore(db);
    });
    afterEach(async () => {
      await store.close();
      await db.drop();
    });

    const debounced = (payload: JsonValue) => ({
      kind: 'k',
      payload,
      debounce: { key: 'd', delayMs: 60_000 },
    });

    it('a debounced job sent a signal before it started is still replaced by the next enqueue', async () => {
      const first = await store.enqueue(debounced({ n: 1 }));
      await store.sendSignal({ jobId: first.id, name: 'approve', payloadJson: '"yes"' });
      const second = await store.enqueue(debounced({ n: 2 }));
      assert.equal(second.id, first.id, 'the enqueue replaced the waiting job');
      const jobs = await store.listJobs({ limit: 10 });
      assert.deepEqual(
        jobs.map((job) => [job.id, job.status, job.payload]),
        [[first.id, 'SCHEDULED', { n: 2 }]],
      );
    });

    it('a debounced job asleep in its first attempt is not its key’s waiting job', async () => {
      const first = await store.enqueue({ ...debounced({ n: 1 }), debounce: { key: 'd', delayMs: 1 } });
      // Past its debounce delay, by a clock a little ahead of the database's.
      const now = new Date(Date.now() + 1_000);
      await store.promoteScheduled({ now });
      const [claimed] = await store.claim({
        workerId: 'w',
        leaseMs: 60_000,
        groups: [{ kinds: ['k'], limit: 1 }],
        now,
      });
      assert.equal(claimed?.id, first.id);
      const waiting = await store.enqueue(debounced({ n: 2 }));
      assert.notEqual(waiting.id, first.id);
      const slept = await store.suspend({
        id: first.id,
        version: claimed.version,
        name: 'nap',
        attempt: 1,
        wait: { type: 'sleep', delayMs: 600_000 },
      });
      assert.equal(slept?.status, 'SCHEDULED');
      const sleeper = await store.getJob(first.id);
      assert.equal(sleeper?.attempts, 0, 'the sleep was not charged');
      const third = await store.enqueue(debounced({ n: 3 }));
      assert.equal(third.id, waiting.id, 'the enqueue replaced the job that never started');
      const after = await store.getJob(first.id);
      assert.deepEqual(after?.payload, { n: 1 }, 'the sleeper kept its payload');
      assert.equal(after?.runAt.getTime(), sleeper?.runAt.getTime(), 'and its wake-up time');
    });
  });
}

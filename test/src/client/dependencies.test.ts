// Dependencies through the transactional enqueue of @nudge/client, on every executor type of each
// dialect: the shared enqueue SQL records the edges, so the store's finishing writes release the
// dependent exactly as for a job the server enqueued.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { Store } from '@nudge/store';
import {
  createMigratedDatabase,
  DIALECTS,
  openStore,
  rawQuery,
  type TestDatabase,
} from '../helpers/index.js';
import { producerExecutors } from './producer-executors.js';

for (const dialect of DIALECTS) {
  describe(`transactional enqueue with dependencies: ${dialect}`, () => {
    let db: TestDatabase | undefined;
    let store: Store | undefined;
    beforeEach(async () => {
      db = await createMigratedDatabase(dialect);
      store = await openStore(db);
    });
    afterEach(async () => {
      await store?.close();
      await db?.drop();
    });

    for (const executor of producerExecutors(dialect)) {
      test(`${executor.name}: a flow in one call; the dependent waits, then runs`, async () => {
        assert.ok(db && store);
        const [first, second, merge] = await executor.write(
          db,
          [{ kind: 'a' }, { kind: 'a' }, { kind: 'b', dependsOn: [{ index: 0 }, { index: 1 }] }],
          false,
        );
        assert.ok(first && second && merge);
        const waiting = await store.getJob(merge.id);
        assert.equal(waiting?.status, 'WAITING');
        assert.deepEqual(waiting?.dependsOn, [first.id, second.id]);
        const claimed = await store.claim({
          workerId: 'w',
          leaseMs: 10_000,
          groups: [{ kinds: ['a'], limit: 10 }],
        });
        assert.equal(claimed.length, 2);
        await store.complete(claimed.map((job) => ({ id: job.id, version: job.version, resultJson: '1' })));
        assert.equal((await store.getJob(merge.id))?.status, 'PENDING');
      });

      test(`${executor.name}: an unknown dependency is refused`, async () => {
        assert.ok(db);
        await assert.rejects(
          executor.write(db, [{ kind: 'a' }, { kind: 'b', dependsOn: [123_456] }], false),
          {
            code: 'DEPENDENCY_NOT_FOUND',
          },
        );
        // Several statements always share one transaction: the caller's, or the enqueue's own.
        const rows = await rawQuery<{ n: number | string }>(db, 'SELECT count(*) AS n FROM nudge_jobs');
        assert.equal(Number(rows[0]?.n), 0, 'no job was written');
      });
    }
  });
}

import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { JobInput } from '@nudge/client';
import { createMigratedDatabase, openStore, rawQuery } from '../helpers/index.js';
import { producerExecutors, Rollback } from '../client/producer-executors.js';
import { describeStore } from './store-fixture.js';

const HOUR_MS = 3_600_000;

/** Throttled and debounced jobs, each key twice, around a plain job. */
const batch = (n: number): JobInput[] => [
  { kind: 't', payload: { n }, throttle: { key: 'x', windowMs: HOUR_MS } },
  { kind: 'd', payload: { n }, debounce: { key: 'x', delayMs: HOUR_MS } },
  { kind: 'plain' },
  { kind: 't', payload: { n: n + 1 }, throttle: { key: 'x', windowMs: HOUR_MS } },
  { kind: 'd', payload: { n: n + 1 }, debounce: { key: 'x', delayMs: HOUR_MS } },
];

// The client's transactional enqueue runs the same dedupe statements as the store, inside the
// producer's transaction: a rolled-back producer leaves no job and no window.
describeStore('the client SDK enqueue of throttled and debounced jobs', (t) => {
  it('answers as the store does on every executor, and a rollback leaves no window', async () => {
    const byStore = await t.store.enqueueMany(batch(1));
    assert.deepEqual(
      byStore.map((j) => j.created),
      [true, true, true, false, false],
    );
    for (const executor of producerExecutors(t.db.dialect)) {
      const db = await createMigratedDatabase(t.db.dialect);
      const store = await openStore(db);
      try {
        if (executor.transactional) {
          await assert.rejects(executor.write(db, batch(1), true), Rollback);
          const [windows] = await rawQuery<{ n: number | string }>(
            db,
            'SELECT count(*) AS n FROM nudge_throttle_windows',
          );
          assert.equal(Number(windows?.n), 0, `${executor.name}: the window rolled back with the producer`);
        }
        const first = await executor.write(db, batch(1), false);
        assert.deepEqual(
          first.map((r) => r.created),
          [true, true, true, false, false],
          executor.name,
        );
        assert.equal(first[3]?.id, first[0]?.id);
        assert.equal(first[4]?.id, first[1]?.id);
        const debounced = await store.getJob(first[1]?.id ?? 0);
        assert.deepEqual(debounced?.payload, { n: 2 }, `${executor.name}: the last payload waits`);
        assert.equal(debounced?.status, 'SCHEDULED');
        assert.deepEqual((await store.getJob(first[0]?.id ?? 0))?.payload, { n: 1 });
        const again = await executor.write(db, batch(5), false);
        assert.deepEqual(
          again.map((r) => r.created),
          [false, false, true, false, false],
          `${executor.name}: the window is open and the debounced job still waits`,
        );
        assert.deepEqual((await store.getJob(first[1]?.id ?? 0))?.payload, { n: 6 });
      } finally {
        await store.close();
        await db.drop();
      }
    }
  });
});

import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { EnqueueResult, JobInput } from '@nudge/client';
import type { Job } from '@nudge/core';
import type { Store } from '@nudge/store';
import { createMigratedDatabase, openStore } from '../helpers/index.js';
import { producerExecutors } from '../client/producer-executors.js';
import { describeStore } from './store-fixture.js';

const HOUR_MS = 3_600_000;

/**
 * One batch that sets every field in turn, in runs of the same fields and alone: runAt past and
 * future, delays of 0 and an hour, a key that existed before the batch and one repeated inside it.
 */
function batch(): JobInput[] {
  const past = new Date(Date.now() - HOUR_MS);
  const future = new Date(Date.now() + HOUR_MS);
  return [
    { kind: 'a' },
    { kind: 'a' },
    { kind: 'b', payload: { n: 1, list: [1, 'two', null] } },
    { kind: 'b', payload: [3] },
    { kind: 'b', payload: null },
    { kind: 'c', queue: 'mail', priority: -7, maxAttempts: 2 },
    { kind: 'c', runAt: past },
    { kind: 'c', runAt: future },
    { kind: 'c', delayMs: 0 },
    { kind: 'c', delayMs: HOUR_MS },
    { kind: 'k', idempotencyKey: 'existing', payload: 'again' },
    { kind: 'k', idempotencyKey: 'fresh', payload: 'first' },
    { kind: 'k', idempotencyKey: 'fresh', payload: 'second' },
    { kind: 'echo', payload: 'last', priority: 3 },
  ];
}

/** What a path writes, without ids and clock readings: run_at as its offset from created_at. */
function written(job: Job) {
  const offsetMs = job.runAt.getTime() - job.createdAt.getTime();
  return {
    kind: job.kind,
    payload: job.payload,
    queue: job.queue,
    priority: job.priority,
    maxAttempts: job.maxAttempts,
    idempotencyKey: job.idempotencyKey,
    status: job.status,
    // Within a minute either way: the batch's own runtime and the test's clock against the database's.
    runAt: offsetMs > 60_000 ? 'later' : offsetMs < -60_000 ? 'earlier' : 'now',
  };
}

async function rowsOf(store: Store, results: readonly { id: number; created: boolean }[]) {
  return Promise.all(
    results.map(async ({ id, created }) => {
      const job = await store.getJob(id);
      assert.ok(job, `job ${id} was written`);
      return { created, ...written(job) };
    }),
  );
}

// The client's SDK and the store both run the store's enqueue plan (@nudge/store/sql): the same batch through
// each, on fresh databases of one dialect, writes the same rows and answers the same.
describeStore('the client SDK enqueue against the store enqueue', (t) => {
  it('writes the same rows and answers the same for every executor', async () => {
    await t.store.enqueue({ kind: 'k', idempotencyKey: 'existing', payload: 'before' });
    const byStore = await rowsOf(t.store, await t.store.enqueueMany(batch()));
    assert.deepEqual(
      byStore.map((r) => r.created),
      [true, true, true, true, true, true, true, true, true, true, false, true, false, true],
    );
    for (const executor of producerExecutors(t.db.dialect)) {
      const db = await createMigratedDatabase(t.db.dialect);
      const store = await openStore(db);
      try {
        await store.enqueue({ kind: 'k', idempotencyKey: 'existing', payload: 'before' });
        const results: EnqueueResult[] = await executor.write(db, batch(), false);
        assert.deepEqual(await rowsOf(store, results), byStore, executor.name);
      } finally {
        await store.close();
        await db.drop();
      }
    }
  });
});

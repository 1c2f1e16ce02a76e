// A SQLite store that finds the file's write lock held by another connection waits for it on a
// timer: its event loop keeps running meanwhile, and the call succeeds once the lock is free, or
// fails with SQLITE_BUSY after the busy timeout having written nothing.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { createStore, type Store } from '@nudge/store';
import { createMigratedDatabase, openStore, type TestDatabase } from '../helpers/index.js';

/** Holds the file's write lock from another connection for `ms`, then commits. */
function holdWriteLock(path: string, ms: number): Promise<void> {
  const other = new Database(path);
  other.exec('BEGIN IMMEDIATE');
  return new Promise((resolve) =>
    setTimeout(() => {
      other.exec('COMMIT');
      other.close();
      resolve();
    }, ms),
  );
}

/** Runs `call`, counting the ticks of a 5 ms interval meanwhile. */
async function withTicks<T>(
  call: () => Promise<T>,
): Promise<{ result: PromiseSettledResult<T>; ticks: number }> {
  let ticks = 0;
  const timer = setInterval(() => (ticks += 1), 5);
  const [result] = await Promise.allSettled([call()]);
  clearInterval(timer);
  return { result: result as PromiseSettledResult<T>, ticks };
}

describe('SQLite: waiting for another connection’s write lock', () => {
  let db: TestDatabase;
  let path: string;
  let store: Store;

  before(async () => {
    db = await createMigratedDatabase('sqlite');
    path = db.url.slice('sqlite:'.length);
    store = await openStore(db);
  });
  after(async () => {
    await store.close();
    await db.drop();
  });

  it('waits on a timer, with the event loop free, and writes once the lock is released', async () => {
    // The holder commits from a timer on this same thread: a wait inside SQLite's busy handler
    // would block that timer and time out instead.
    const released = holdWriteLock(path, 300);
    const { result, ticks } = await withTicks(() => store.enqueue({ kind: 'k' }));
    await released;
    assert.equal(result.status, 'fulfilled', String((result as PromiseRejectedResult).reason));
    assert.ok(ticks >= 10, `the event loop ran while the store waited (${ticks} ticks of 5 ms)`);
    assert.equal((await store.countByStatus()).PENDING, 1);
  });

  it('fails with SQLITE_BUSY after its busy timeout, having written nothing', async () => {
    const impatient = createStore(db.url, { queryTimeoutMs: 200 });
    try {
      const before = await impatient.countByStatus();
      // The holder keeps the lock five times the budget; what counts is that the store gave up
      // while it was still held, not how fast.
      let holding = true;
      const released = holdWriteLock(path, 1_000).then(() => (holding = false));
      const started = performance.now();
      const { result } = await withTicks(() => impatient.enqueue({ kind: 'k' }));
      const waitedMs = performance.now() - started;
      const gaveUpWhileHeld = holding;
      await released;
      assert.equal(result.status, 'rejected');
      assert.equal((result.reason as { code?: string }).code, 'SQLITE_BUSY');
      assert.ok(waitedMs >= 200, `waited out its 200 ms budget first (${Math.round(waitedMs)} ms)`);
      assert.ok(gaveUpWhileHeld, 'gave up while the lock was still held');
      assert.deepEqual(await impatient.countByStatus(), before);
    } finally {
      await impatient.close();
    }
  });
});

// PostgreSQL cuts prepared statement names at 63 bytes: two statements whose names differ only
// past that would collide on one connection (`42P05 prepared statement … already exists`).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PostgresStore } from '@nudge/store';
import { createPostgresDatabase, type TestDatabase } from '../helpers/index.js';

describe('PostgreSQL: prepared statement names of the self-claiming enqueue', () => {
  let db: TestDatabase;
  let store: PostgresStore;
  before(async () => {
    db = await createPostgresDatabase();
    // One connection, so both shapes are prepared on the same one.
    store = new PostgresStore(db.url, { poolSize: 1 });
    await store.migrate();
  });
  after(async () => {
    await store.close();
    await db.drop();
  });

  it('two shapes whose field lists share their first 63 bytes both run', async () => {
    const claim = { workerId: 'w', leaseMs: 10_000, kinds: ['a'] };
    const base = { kind: 'a', payload: {}, maxAttempts: 2, idempotencyKey: 'x', concurrencyKey: 'k' };
    const first = await store.enqueueAndClaim(base, claim);
    assert.equal(first.status, 'RUNNING');
    const second = await store.enqueueAndClaim({ ...base, idempotencyKey: 'y', runAt: new Date() }, claim);
    assert.ok(second.id > first.id);
  });
});

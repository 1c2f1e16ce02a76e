import { it } from 'node:test';
import assert from 'node:assert/strict';
import { createStore } from '@nudge/store';
import { createTestDatabase, openStore, rawQuery, runStoreThreads } from '../helpers/index.js';
import { describeStore, later, leaseOf } from './store-fixture.js';

describeStore('basics', (t) => {
  it('counts jobs by status, every status present', async () => {
    const zero = { WAITING: 0, SCHEDULED: 0, PENDING: 0, RUNNING: 0, SUCCEEDED: 0, FAILED: 0, CANCELLED: 0 };
    assert.deepEqual(await t.store.countByStatus(), zero);
    const now = await t.store.now();
    await t.store.enqueueMany([
      { kind: 'a' },
      { kind: 'b' },
      { kind: 'c' },
      { kind: 'a', runAt: later(now, 9e6) },
    ]);
    const [job] = await t.claim(1);
    assert.ok(job);
    await t.store.complete([{ ...leaseOf(job), resultJson: null }]);
    await t.claim(1);
    assert.deepEqual(await t.store.countByStatus(), {
      ...zero,
      SCHEDULED: 1,
      PENDING: 1,
      RUNNING: 1,
      SUCCEEDED: 1,
    });
  });

  it('enqueueMany returns jobs in input order and is all or nothing', async () => {
    const jobs = await t.store.enqueueMany(
      Array.from({ length: 1500 }, (_, i) => ({ kind: 'k', payload: { i } })),
    );
    assert.deepEqual(
      jobs.map((j) => (j.payload as { i: number }).i),
      Array.from({ length: 1500 }, (_, i) => i),
    );
    await assert.rejects(t.store.enqueueMany([{ kind: 'fine' }, { kind: 'bad', maxAttempts: 0 }]));
    const [count] = await rawQuery<{ n: number | string }>(t.db, 'SELECT count(*) AS n FROM nudge_jobs');
    assert.equal(Number(count?.n), 1500);
  });

  it('refuses a job no dialect stores alike, naming it, and writes nothing of its batch', async () => {
    const refused = async (run: () => Promise<unknown>, code: string, message: RegExp): Promise<void> => {
      await assert.rejects(run, (error: { code?: string; message?: string }) => {
        assert.equal(error.code, code);
        assert.match(error.message ?? '', message);
        return true;
      });
    };
    let deep: unknown = 0;
    for (let i = 0; i < 10_000; i += 1) deep = { d: deep };
    const claim = { workerId: 'w', leaseMs: 60_000, kinds: ['a'] };
    await refused(
      () => t.store.enqueueMany([{ kind: 'a' }, { kind: 'a', payload: { s: 'x\u0000' } }]),
      'PAYLOAD_UNSTORABLE',
      /^\/jobs\/1\/payload\/s: a string contains U\+0000/,
    );
    await refused(
      () => t.store.enqueue({ kind: 'a', payload: deep as never }),
      'PAYLOAD_TOO_DEEP',
      /^\/payload(\/d){100}:/,
    );
    await refused(
      () => t.store.enqueueAndClaim({ kind: 'a', payload: ['\udc00'] }, claim),
      'PAYLOAD_UNSTORABLE',
      /^\/payload\/0: a string contains a lone UTF-16 surrogate/,
    );
    await refused(
      () => t.store.enqueue({ kind: 'a\u0000' }),
      'PAYLOAD_UNSTORABLE',
      /^\/kind contains U\+0000/,
    );
    const counts = await t.store.countByStatus();
    assert.equal(
      Object.values(counts).reduce((sum, n) => sum + n, 0),
      0,
      JSON.stringify(counts),
    );
  });

  it('migrations are idempotent, safe to run concurrently, and refuse a newer schema', async () => {
    assert.deepEqual(await t.store.migrate(), []);
    const state = await t.store.schemaState();
    assert.equal(state.applied, state.latest);
    // Three threads, each with its own connection, migrate one fresh database at the same moment.
    const fresh = await createTestDatabase(t.db.dialect);
    try {
      const results = await runStoreThreads(fresh, [
        { type: 'migrate' },
        { type: 'migrate' },
        { type: 'migrate' },
      ]);
      const applied = results.flatMap((result) => (result.type === 'migrate' ? result.applied : []));
      assert.deepEqual(
        applied.sort((x, y) => x - y),
        Array.from({ length: state.latest }, (_, i) => i + 1),
        'each migration is applied by exactly one thread',
      );
      const check = createStore(fresh.url);
      try {
        assert.deepEqual(await check.schemaState(), state);
      } finally {
        await check.close();
      }
    } finally {
      await fresh.drop();
    }
    await rawQuery(t.db, `INSERT INTO nudge_migrations (version, name) VALUES (999, '0999_from_the_future')`);
    await assert.rejects(t.store.migrate(), { code: 'SCHEMA_TOO_NEW' });
  });

  it('closing twice is harmless, and a closed store refuses work', async () => {
    const other = await openStore(t.db);
    await other.close();
    await other.close();
    await assert.rejects(other.ping());
  });
});

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { describeStore, leaseOf } from './store-fixture.js';

describeStore('listing', (t) => {
  it('pages newest first with a keyset cursor, filtered by status and kind, or reads ids', async () => {
    const jobs = await t.store.enqueueMany(
      Array.from({ length: 7 }, (_, n) => ({ kind: n % 2 === 0 ? 'even' : 'odd', payload: { n } })),
    );
    const ids = jobs.map((job) => job.id);
    const [claimed] = await t.claim(1, { kinds: ['even'] });
    assert.ok(claimed);
    await t.store.complete([{ ...leaseOf(claimed), resultJson: '{"ok":true}' }]);

    const first = await t.store.listJobs({ limit: 3 });
    assert.deepEqual(
      first.map((job) => job.id),
      ids.slice(-3).reverse(),
    );
    const second = await t.store.listJobs({ limit: 3, beforeId: first.at(-1)?.id });
    assert.deepEqual(
      second.map((job) => job.id),
      ids.slice(1, 4).reverse(),
    );
    const odd = await t.store.listJobs({ limit: 10, kind: 'odd' });
    assert.deepEqual(
      odd.map((job) => job.id),
      [ids[5], ids[3], ids[1]],
    );
    const done = await t.store.listJobs({ limit: 10, status: 'SUCCEEDED' });
    assert.deepEqual(
      done.map((job) => [job.id, job.result]),
      [[claimed.id, { ok: true }]],
    );
    const picked = await t.store.listJobs({ ids: [ids[0] ?? 0, ids[4] ?? 0, 999_999], limit: 100 });
    assert.deepEqual(
      picked.map((job) => job.id),
      [ids[4], ids[0]],
    );
    assert.deepEqual(await t.store.listJobs({ ids: [], limit: 100 }), []);
  });
});

describeStore('listing by concurrency key', (t) => {
  it('lists the jobs of one concurrencyKey newest first, combined with status, kind and queue', async () => {
    const [a1, b1, a2, none, a3] = await t.store.enqueueMany([
      { kind: 'sync', queue: 'q', concurrencyKey: 'a' },
      { kind: 'sync', queue: 'q', concurrencyKey: 'b' },
      { kind: 'mail', queue: 'q', concurrencyKey: 'a' },
      { kind: 'sync', queue: 'q' },
      { kind: 'sync', queue: 'other', concurrencyKey: 'a' },
    ]);
    assert.ok(a1 && b1 && a2 && none && a3);
    const [claimed] = await t.claim(1, { kinds: ['mail'] });
    assert.equal(claimed?.id, a2.id);
    const ids = async (query: Parameters<typeof t.store.listJobs>[0]) =>
      (await t.store.listJobs(query)).map((job) => job.id);
    assert.deepEqual(await ids({ limit: 10, concurrencyKey: 'a' }), [a3.id, a2.id, a1.id]);
    assert.deepEqual(await ids({ limit: 10, concurrencyKey: 'a', queue: 'q' }), [a2.id, a1.id]);
    assert.deepEqual(await ids({ limit: 10, concurrencyKey: 'a', status: 'RUNNING' }), [a2.id]);
    assert.deepEqual(await ids({ limit: 10, concurrencyKey: 'a', kind: 'sync', beforeId: a3.id }), [a1.id]);
    assert.deepEqual(await ids({ limit: 10, concurrencyKey: 'b' }), [b1.id]);
    assert.deepEqual(await ids({ limit: 10, concurrencyKey: 'c' }), []);
    // A key is one exact value: the list holds the job's key.
    const [listed] = await t.store.listJobs({ limit: 1, concurrencyKey: 'b' });
    assert.equal(listed?.concurrencyKey, 'b');
  });
});

describeStore('listing filters no job can match', (t) => {
  it('refuses a kind or queue with U+0000 or a lone surrogate with INVALID_REQUEST, on both dialects alike', async () => {
    await t.store.enqueue({ kind: 'ab' });
    for (const query of [
      { kind: 'a\u0000b' },
      { kind: 'a\ud800' },
      { queue: 'q\u0000' },
      { concurrencyKey: 'k\u0000' },
    ]) {
      await assert.rejects(t.store.listJobs({ limit: 10, ...query }), (error: Error & { code?: string }) => {
        assert.equal(error.code, 'INVALID_REQUEST');
        assert.match(error.message, /querystring\/(kind|queue|concurrencyKey) contains/);
        return true;
      });
    }
  });
});

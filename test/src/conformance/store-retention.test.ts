import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { TerminalStatus } from '@nudge/core';
import { rawQuery } from '../helpers/index.js';
import { describeStore, later, leaseOf, type StoreCase } from './store-fixture.js';

const HOUR_MS = 3_600_000;

/** Runs one job of `kind` to `status`, finishing at `finishedAt` (by the store's `now`). */
async function finished(
  t: StoreCase,
  kind: string,
  status: TerminalStatus,
  finishedAt: Date,
  idempotencyKey?: string,
): Promise<number> {
  const job = await t.store.enqueue({ kind, maxAttempts: 1, ...(idempotencyKey ? { idempotencyKey } : {}) });
  if (status === 'CANCELLED') {
    assert.equal((await t.store.cancelJob(job.id, finishedAt)).outcome, 'changed');
    return job.id;
  }
  const [claimed] = await t.claim(1, { kinds: [kind] });
  assert.equal(claimed?.id, job.id);
  if (status === 'SUCCEEDED') {
    assert.equal((await t.store.complete([{ ...leaseOf(claimed), resultJson: null }], finishedAt)).length, 1);
  } else {
    await t.store.fail([{ ...leaseOf(claimed), error: 'no', retryDelayMs: 0 }], finishedAt);
  }
  assert.equal((await t.store.getJob(job.id))?.status, status);
  return job.id;
}

describeStore('retention', (t) => {
  it('lists the kinds that have jobs in a finished status, and no others', async () => {
    const now = await t.store.now();
    await finished(t, 'a', 'SUCCEEDED', now);
    await finished(t, 'b', 'SUCCEEDED', now);
    await finished(t, 'b', 'FAILED', now);
    await finished(t, 'c', 'CANCELLED', now);
    await t.store.enqueue({ kind: 'echo' });
    assert.deepEqual(await t.store.finishedKinds(), [
      { status: 'CANCELLED', kind: 'c' },
      { status: 'FAILED', kind: 'b' },
      { status: 'SUCCEEDED', kind: 'a' },
      { status: 'SUCCEEDED', kind: 'b' },
    ]);
  });

  it('deletes only jobs of the status and kind finished before the age, oldest first, at most the limit', async () => {
    const now = await t.store.now();
    const old = [
      await finished(t, 'a', 'SUCCEEDED', later(now, -5 * HOUR_MS)),
      await finished(t, 'a', 'SUCCEEDED', later(now, -4 * HOUR_MS)),
      await finished(t, 'a', 'SUCCEEDED', later(now, -3 * HOUR_MS)),
    ];
    const recent = await finished(t, 'a', 'SUCCEEDED', later(now, -HOUR_MS / 2));
    const otherKind = await finished(t, 'b', 'SUCCEEDED', later(now, -5 * HOUR_MS));
    const otherStatus = await finished(t, 'a', 'FAILED', later(now, -5 * HOUR_MS));
    const pending = await t.store.enqueue({ kind: 'a' });
    const prune = (limit: number) =>
      t.store.pruneFinished({ status: 'SUCCEEDED', kind: 'a', olderThanMs: HOUR_MS, limit, now });

    assert.equal(await prune(2), 2);
    const gone = async (id: number) => (await t.store.getJob(id)) === undefined;
    assert.deepEqual(await Promise.all(old.map(gone)), [true, true, false], 'the oldest two went first');
    assert.equal(await prune(2), 1);
    assert.equal(await prune(2), 0);
    for (const id of [recent, otherKind, otherStatus, pending.id]) {
      assert.equal(await gone(id), false, `job ${id} is kept`);
    }
  });

  it('frees the idempotency key of a deleted job', async () => {
    const now = await t.store.now();
    const id = await finished(t, 'k', 'SUCCEEDED', later(now, -2 * HOUR_MS), 'order-7');
    const kept = await t.store.enqueue({ kind: 'k', idempotencyKey: 'order-7' });
    assert.deepEqual([kept.id, kept.created], [id, false]);
    assert.equal(
      await t.store.pruneFinished({ status: 'SUCCEEDED', kind: 'k', olderThanMs: HOUR_MS, limit: 10 }),
      1,
    );
    const again = await t.store.enqueue({ kind: 'k', idempotencyKey: 'order-7' });
    assert.equal(again.created, true);
    assert.notEqual(again.id, id);
  });

  it('measures the age by the database clock, and keeps what finished within it', async () => {
    const now = await t.store.now();
    const id = await finished(t, 'k', 'CANCELLED', later(now, -10_000));
    const prune = (olderThanMs: number) =>
      t.store.pruneFinished({ status: 'CANCELLED', kind: 'k', olderThanMs, limit: 10 });
    assert.equal(await prune(HOUR_MS), 0);
    assert.notEqual(await t.store.getJob(id), undefined);
    assert.equal(await prune(5000), 1);
    assert.equal(await t.store.getJob(id), undefined);
  });

  it('reuses the space of pruned rows once it is reclaimed: the table does not grow', async () => {
    // Bytes in use by the table: PostgreSQL's heap, SQLite's pages not on the free list.
    const used = async (): Promise<number> => {
      const sql =
        t.db.dialect === 'postgres'
          ? `SELECT pg_table_size('nudge_jobs') AS n`
          : `SELECT (SELECT page_count FROM pragma_page_count()) - (SELECT freelist_count FROM pragma_freelist_count()) AS n`;
      return Number((await rawQuery<{ n: number | string }>(t.db, sql))[0]?.n);
    };
    const payload = { text: 'x'.repeat(200) };
    const churn = async () => {
      const jobs = await t.store.enqueueMany(Array.from({ length: 2000 }, () => ({ kind: 'k', payload })));
      await rawQuery(
        t.db,
        `UPDATE nudge_jobs SET status = 'SUCCEEDED', finished_at = created_at WHERE status = 'PENDING'`,
      );
      let deleted = 0;
      for (let n = -1; n !== 0; deleted += n) {
        n = await t.store.pruneFinished({
          status: 'SUCCEEDED',
          kind: 'k',
          olderThanMs: 0,
          limit: 500,
          now: later(await t.store.now(), 1000),
        });
      }
      assert.equal(deleted, jobs.length);
      await t.store.reclaimSpace();
    };
    await churn();
    const afterFirst = await used();
    for (let round = 0; round < 3; round += 1) await churn();
    const afterFour = await used();
    assert.ok(
      afterFour <= afterFirst * 1.2,
      `the table grew from ${afterFirst} to ${afterFour} bytes over three more rounds`,
    );
  });
});

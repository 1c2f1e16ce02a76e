// A retried job waits for its dependencies again: WAITING while one has not finished (or is
// retried by the same bulk command), PENDING once all succeeded, refused ('blocked') when it
// cancels on a failed dependency that nobody retries. A bulk retry of a whole failed flow works
// whatever order its pages take.
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type pg from 'pg';
import type { JobStatus } from '@nudge/core';
import type { EnqueuedJob, Store } from '@nudge/store';
import {
  createMigratedDatabase,
  openStore,
  rawQuery,
  testPool,
  waitUntil,
  type TestDatabase,
} from '../helpers/index.js';
import { describeStore, leaseOf, type StoreCase } from './store-fixture.js';

async function statuses(t: StoreCase, jobs: readonly EnqueuedJob[]): Promise<(JobStatus | undefined)[]> {
  return Promise.all(jobs.map(async (job) => (await t.store.getJob(job.id))?.status));
}

/** Claims job `id` among the jobs of `kind` and writes `outcome`; the others are released. */
async function finish(t: StoreCase, id: number, kind: string, outcome: 'succeed' | 'fail'): Promise<void> {
  const claimed = await t.claim(1000, { kinds: [kind] });
  const job = claimed.find((c) => c.id === id);
  assert.ok(job, `job ${id} was claimed`);
  await t.store.release(claimed.filter((c) => c.id !== id).map(leaseOf));
  if (outcome === 'succeed') await t.store.complete([{ ...leaseOf(job), resultJson: null }]);
  else await t.store.fail([{ ...leaseOf(job), error: 'boom', retryDelayMs: 0, permanent: true }]);
}

describeStore('retrying jobs with dependencies', (t) => {
  it('a cancelled dependent whose dependency has not finished waits for it again', async () => {
    const [a, b] = await t.store.enqueueMany([{ kind: 'a' }, { kind: 'k', dependsOn: [{ index: 0 }] }]);
    assert.ok(a && b);
    assert.equal((await t.store.cancelJob(b.id)).outcome, 'changed');
    const retried = await t.store.retryJob(b.id);
    assert.ok(retried.outcome === 'changed');
    assert.equal(retried.job.status, 'WAITING', 'not PENDING beside its running dependency');
    assert.deepEqual(await t.claim(10, { kinds: ['k'] }), [], 'never claimed while it waits');
    await finish(t, a.id, 'a', 'succeed');
    assert.deepEqual(await statuses(t, [b]), ['PENDING']);
  });

  it('a chain failed at its head: dependents are refused until the head is retried, then wait link by link', async () => {
    const [a, b, c] = await t.store.enqueueMany([
      { kind: 'a' },
      { kind: 'k', dependsOn: [{ index: 0 }] },
      { kind: 'k', dependsOn: [{ index: 1 }] },
    ]);
    assert.ok(a && b && c);
    await finish(t, a.id, 'a', 'fail');
    assert.deepEqual(await statuses(t, [a, b, c]), ['FAILED', 'CANCELLED', 'CANCELLED']);
    const refused = await t.store.retryJob(c.id);
    assert.ok(refused.outcome === 'blocked');
    assert.deepEqual(refused.dependency, { id: b.id, status: 'CANCELLED' });
    assert.equal(refused.job.status, 'CANCELLED');
    const alsoRefused = await t.store.retryJob(b.id);
    assert.ok(alsoRefused.outcome === 'blocked');
    assert.deepEqual(alsoRefused.dependency, { id: a.id, status: 'FAILED' });
    assert.deepEqual(await statuses(t, [a, b, c]), ['FAILED', 'CANCELLED', 'CANCELLED'], 'nothing changed');
    assert.equal((await t.store.retryJob(a.id)).outcome, 'changed');
    for (const job of [b, c]) {
      const result = await t.store.retryJob(job.id);
      assert.ok(result.outcome === 'changed');
      assert.equal(result.job.status, 'WAITING');
    }
    await finish(t, a.id, 'a', 'succeed');
    assert.deepEqual(await statuses(t, [b, c]), ['PENDING', 'WAITING']);
    await finish(t, b.id, 'k', 'succeed');
    assert.deepEqual(await statuses(t, [c]), ['PENDING']);
  });

  it("'run' is not refused: it runs once its dependencies finished, and waits for one retried", async () => {
    const [a, r] = await t.store.enqueueMany([
      { kind: 'a' },
      { kind: 'k', dependsOn: [{ index: 0 }], onDependencyFailure: 'run' },
    ]);
    assert.ok(a && r);
    await finish(t, a.id, 'a', 'fail');
    await finish(t, r.id, 'k', 'fail');
    const again = await t.store.retryJob(r.id);
    assert.ok(again.outcome === 'changed');
    assert.equal(again.job.status, 'PENDING', 'its dependency finished (FAILED): it runs');
    assert.equal((await t.store.cancelJob(r.id)).outcome, 'changed');
    await t.store.retryJob(a.id);
    const waits = await t.store.retryJob(r.id);
    assert.ok(waits.outcome === 'changed');
    assert.equal(waits.job.status, 'WAITING');
    await finish(t, a.id, 'a', 'fail');
    assert.deepEqual(await statuses(t, [r]), ['PENDING']);
  });

  it('a dependency that no longer exists blocks the retry of a job that cancels on failure', async () => {
    const [a, b] = await t.store.enqueueMany([{ kind: 'a' }, { kind: 'k', dependsOn: [{ index: 0 }] }]);
    assert.ok(a && b);
    await t.store.cancelJob(b.id);
    await finish(t, a.id, 'a', 'succeed');
    await rawQuery(t.db, 'DELETE FROM nudge_jobs WHERE id = ?', [a.id]);
    const refused = await t.store.retryJob(b.id);
    assert.ok(refused.outcome === 'blocked');
    assert.deepEqual(refused.dependency, { id: a.id, status: null });
  });

  it('a dependency finishing while its dependent is retried never leaves the dependent waiting', async () => {
    for (let round = 0; round < 25; round += 1) {
      const [a, b] = await t.store.enqueueMany([{ kind: 'a' }, { kind: 'k', dependsOn: [{ index: 0 }] }]);
      assert.ok(a && b);
      await t.store.cancelJob(b.id);
      const [claimed] = await t.claim(1, { kinds: ['a'] });
      assert.equal(claimed?.id, a.id);
      await Promise.all([
        t.store.complete([{ ...leaseOf(claimed), resultJson: null }]),
        t.store.retryJob(b.id),
      ]);
      assert.deepEqual(await statuses(t, [b]), ['PENDING'], `round ${round}`);
    }
  });

  it('one bulk retry of a cancelled flow, dependents paged before their head: each waits, then runs in turn', async () => {
    // Kind 'a' sorts before 'b': the walk reaches the dependents before the head they wait for.
    const flow = await t.store.enqueueMany([
      { kind: 'b' },
      { kind: 'a', dependsOn: [{ index: 0 }] },
      { kind: 'a', dependsOn: [{ index: 1 }] },
      { kind: 'a', dependsOn: [{ index: 0 }, { index: 2 }] },
    ]);
    const [head, first, second, both] = flow;
    assert.ok(head && first && second && both);
    await t.store.cancelJob(head.id);
    assert.deepEqual(await statuses(t, flow), ['CANCELLED', 'CANCELLED', 'CANCELLED', 'CANCELLED']);
    const result = await t.store.retryJobs({ status: 'CANCELLED' });
    assert.equal(result.changed, 4);
    assert.deepEqual(await statuses(t, flow), ['PENDING', 'WAITING', 'WAITING', 'WAITING']);
    await finish(t, head.id, 'b', 'succeed');
    assert.deepEqual(await statuses(t, flow.slice(1)), ['PENDING', 'WAITING', 'WAITING']);
    await finish(t, first.id, 'a', 'succeed');
    assert.deepEqual(await statuses(t, flow.slice(2)), ['PENDING', 'WAITING']);
    await finish(t, second.id, 'a', 'succeed');
    assert.deepEqual(await statuses(t, [both]), ['PENDING']);
  });

  it('a failed flow retried in bulk, FAILED then CANCELLED: the dependents wait for the head', async () => {
    const flow = await t.store.enqueueMany([
      { kind: 'b' },
      { kind: 'a', dependsOn: [{ index: 0 }] },
      { kind: 'a', dependsOn: [{ index: 1 }] },
    ]);
    const [head, first, second] = flow;
    assert.ok(head && first && second);
    await finish(t, head.id, 'b', 'fail');
    const early = await t.store.retryJobs({ status: 'CANCELLED', kind: 'a' });
    assert.equal(early.changed, 1, 'the first dependent is left as it is: its head is not retried');
    // The second waited for the first, which the command refused: settled back to CANCELLED, as
    // the release would have, rather than left WAITING on finished dependencies.
    assert.deepEqual(await statuses(t, flow), ['FAILED', 'CANCELLED', 'CANCELLED']);
    assert.equal((await t.store.retryJobs({ status: 'FAILED' })).changed, 1);
    assert.equal((await t.store.retryJobs({ status: 'CANCELLED' })).changed, 2);
    assert.deepEqual(await statuses(t, flow), ['PENDING', 'WAITING', 'WAITING']);
    await finish(t, head.id, 'b', 'succeed');
    await finish(t, first.id, 'a', 'succeed');
    assert.deepEqual(await statuses(t, [second]), ['PENDING']);
  });
});

const FINISH = `UPDATE nudge_jobs SET status = 'SUCCEEDED', finished_at = now() WHERE id = $1`;

describe('store conformance, retrying dependents under concurrent transactions: postgres', () => {
  let db: TestDatabase | undefined;
  let store: Store | undefined;
  let pool: pg.Pool | undefined;
  beforeEach(async () => {
    db = await createMigratedDatabase('postgres');
    store = await openStore(db);
    pool = testPool(db.url);
  });
  afterEach(async () => {
    await pool?.end();
    await store?.close();
    await db?.drop();
  });

  it('a retry waits for a dependency being finished, then sees it finished', async () => {
    assert.ok(store && pool);
    const [a, b] = await store.enqueueMany([{ kind: 'a' }, { kind: 'k', dependsOn: [{ index: 0 }] }]);
    assert.ok(a && b);
    await store.cancelJob(b.id);
    const finisher = await pool.connect();
    try {
      await finisher.query('BEGIN');
      await finisher.query(FINISH, [a.id]);
      // Without the lock the retry would read a as PENDING and leave b WAITING, and the finishing
      // transaction (which saw no dependent) would never release it.
      const retried = store.retryJob(b.id);
      await waitUntil(
        async () => {
          const { rows } = await pool!.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity
              WHERE datname = current_database() AND wait_event_type = 'Lock'`,
          );
          return (rows[0]?.n ?? 0) > 0 ? true : undefined;
        },
        15_000,
        10,
        'the retry waiting for the row lock',
      );
      await finisher.query('COMMIT');
      const result = await retried;
      assert.ok(result.outcome === 'changed');
      assert.equal(result.job.status, 'PENDING');
    } finally {
      finisher.release();
    }
  });
});

// A cancel cascades down a chain of any depth in one pass: the dependency trigger finds every
// waiting dependent that cancels on a failed dependency at once, so no server limit on trigger
// recursion (PostgreSQL's stack depth, SQLite's trigger depth) bounds the chain.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { EnqueueInput, EnqueuedJob } from '@nudge/store';
import { dependencyEdges, rawQuery } from '../helpers/index.js';
import { describeStore, leaseOf, type StoreCase } from './store-fixture.js';

/** Jobs per enqueueMany call: the most one `POST /jobs/batch` takes. */
const BATCH = 1000;

/**
 * A chain of `length` jobs of kind `k`, each depending on the one before, enqueued in batches of
 * {@link BATCH} (the first of each later batch depends on the last of the one before by id).
 */
async function enqueueChain(t: StoreCase, length: number): Promise<EnqueuedJob[]> {
  const chain: EnqueuedJob[] = [];
  while (chain.length < length) {
    const size = Math.min(BATCH, length - chain.length);
    const previous = chain.at(-1);
    const batch: EnqueueInput[] = Array.from({ length: size }, (_, i) => {
      if (i > 0) return { kind: 'k', dependsOn: [{ index: i - 1 }] };
      return previous ? { kind: 'k', dependsOn: [previous.id] } : { kind: 'a' };
    });
    chain.push(...(await t.store.enqueueMany(batch)));
  }
  return chain;
}

async function countWhere(t: StoreCase, where: string): Promise<number> {
  const [row] = await rawQuery<{ n: number | string }>(
    t.db,
    `SELECT count(*) AS n FROM nudge_jobs WHERE ${where}`,
  );
  return Number(row?.n ?? 0);
}

async function edges(t: StoreCase): Promise<number> {
  return (await dependencyEdges(t.db)).length;
}

/** Fails the chain's head (kind `a`) for good. */
async function failHead(t: StoreCase, head: EnqueuedJob): Promise<void> {
  const [claimed] = await t.claim(1, { kinds: ['a'] });
  assert.equal(claimed?.id, head.id);
  const [outcome] = await t.store.fail([
    { ...leaseOf(claimed), error: 'boom', retryDelayMs: 0, permanent: true },
  ]);
  assert.equal(outcome?.status, 'FAILED');
}

describeStore('dependency chains', (t) => {
  it(`a chain of ${BATCH} jobs from one batch is cancelled to its end when its head fails`, async () => {
    const chain = await enqueueChain(t, BATCH);
    const [head, second, third] = chain;
    assert.ok(head && second && third);
    assert.equal(await countWhere(t, "status = 'WAITING'"), BATCH - 1);
    await failHead(t, head);
    assert.equal(await countWhere(t, "status = 'CANCELLED' AND kind = 'k'"), BATCH - 1);
    assert.equal(await edges(t), 0, 'no edge is left behind');
    assert.equal((await t.store.getJob(second.id))?.lastError, `dependency ${head.id} ended FAILED`);
    assert.equal((await t.store.getJob(third.id))?.lastError, `dependency ${second.id} ended CANCELLED`);
    const last = chain.at(-1);
    assert.equal(
      (await t.store.getJob(last?.id ?? 0))?.lastError,
      `dependency ${chain.at(-2)?.id} ended CANCELLED`,
    );
  });

  it(`a chain of ${BATCH} jobs is cancelled to its end when its head is cancelled`, async () => {
    const [head] = await enqueueChain(t, BATCH);
    assert.ok(head);
    assert.equal((await t.store.cancelJob(head.id)).outcome, 'changed');
    assert.equal(await countWhere(t, "status = 'CANCELLED'"), BATCH);
    assert.equal(await edges(t), 0);
  });

  it('a chain of 5000 jobs built over five batches is cancelled to its end when its head fails', async () => {
    const chain = await enqueueChain(t, 5 * BATCH);
    assert.ok(chain[0]);
    assert.deepEqual(chain[BATCH]?.dependsOn, [chain[BATCH - 1]?.id]);
    await failHead(t, chain[0]);
    assert.equal(await countWhere(t, "status = 'CANCELLED'"), 5 * BATCH - 1);
    assert.equal(await edges(t), 0);
  });

  it('a chain of 5000 jobs is cancelled to its end by a bulk cancel of its head', async () => {
    await enqueueChain(t, 5 * BATCH);
    const result = await t.store.cancelJobs({ kind: 'a' });
    assert.equal(result.changed, 1);
    assert.equal(await countWhere(t, "status = 'CANCELLED'"), 5 * BATCH);
    assert.equal(await edges(t), 0);
  });

  it("'run' dependents below a cancelled chain are released once their last dependency finished", async () => {
    const [head, b, c] = await enqueueChain(t, 3);
    assert.ok(head && b && c);
    const running = await t.store.enqueue({ kind: 'b' });
    const [afterChain, afterBoth, cancelsAfter] = await t.store.enqueueMany([
      { kind: 'k', dependsOn: [b.id, c.id], onDependencyFailure: 'run' },
      { kind: 'k', dependsOn: [c.id, running.id], onDependencyFailure: 'run' },
      { kind: 'k', dependsOn: [{ index: 0 }] },
    ]);
    assert.ok(afterChain && afterBoth && cancelsAfter);
    await failHead(t, head);
    const status = async (job: EnqueuedJob) => (await t.store.getJob(job.id))?.status;
    assert.deepEqual(await Promise.all([b, c].map(status)), ['CANCELLED', 'CANCELLED']);
    assert.equal(await status(afterChain), 'PENDING', 'both its dependencies were cancelled: it runs anyway');
    assert.equal(await status(afterBoth), 'WAITING', 'it still waits for the other dependency');
    assert.equal(await status(cancelsAfter), 'WAITING', "the 'run' job it waits for has not finished");
    assert.equal((await t.store.cancelJob(running.id)).outcome, 'changed');
    assert.equal(await status(afterBoth), 'PENDING');
  });
});

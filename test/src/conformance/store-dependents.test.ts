// Reading a job's dependents (Store.listDependents) on both dialects: every job whose dependsOn
// names it, whatever their status (waiting, released, finished, cancelled by its failure), oldest
// first, a page at a time, and still after the dependency itself was deleted.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { describeStore, leaseOf, type StoreCase } from './store-fixture.js';

const idsOf = (jobs: ReadonlyArray<{ id: number }>) => jobs.map((job) => job.id);

async function claimOne(t: StoreCase, id: number) {
  const claimed = await t.claim(100, { kinds: ['k'] });
  const job = claimed.find((c) => c.id === id);
  assert.ok(job, `job ${id} was claimed`);
  await t.store.release(claimed.filter((c) => c.id !== id).map(leaseOf));
  return leaseOf(job);
}

describeStore('dependents', (t) => {
  it('lists the jobs that depend on a job, oldest first, whatever their status, a page at a time', async () => {
    const [root, other, fanIn, chained, runAnyway] = await t.store.enqueueMany([
      { kind: 'k' },
      { kind: 'k' },
      { kind: 'k', dependsOn: [{ index: 0 }, { index: 1 }] },
      { kind: 'k', dependsOn: [{ index: 2 }] },
      { kind: 'k', dependsOn: [{ index: 0 }], onDependencyFailure: 'run' },
    ]);
    assert.ok(root && other && fanIn && chained && runAnyway);
    // A dependent enqueued on its own later, after an unrelated job with a higher id.
    const unrelated = await t.store.enqueue({ kind: 'k', payload: { dependsOn: [root.id] } });
    const late = await t.store.enqueue({ kind: 'k', dependsOn: [root.id] });

    const list = async (id: number, more: { afterId?: number; limit?: number } = {}) =>
      t.store.listDependents({ id, limit: more.limit ?? 100, ...more });
    assert.deepEqual(idsOf(await list(root.id)), [fanIn.id, runAnyway.id, late.id]);
    assert.deepEqual(idsOf(await list(other.id)), [fanIn.id]);
    assert.deepEqual(idsOf(await list(fanIn.id)), [chained.id], 'only direct dependents');
    assert.deepEqual(await list(chained.id), []);
    assert.deepEqual(await list(unrelated.id), []);
    const page = await list(root.id, { limit: 2 });
    assert.deepEqual(idsOf(page), [fanIn.id, runAnyway.id]);
    assert.deepEqual(idsOf(await list(root.id, { limit: 2, afterId: page.at(-1)?.id })), [late.id]);

    const [listed] = await list(other.id);
    assert.equal(listed?.status, 'WAITING');
    assert.deepEqual(listed?.dependsOn, [root.id, other.id]);
    assert.equal(listed?.payload, null, 'listed without payload');

    // The root fails for good: fanIn and chained are cancelled, runAnyway released; all still listed.
    const lease = await claimOne(t, root.id);
    await t.store.fail([{ ...lease, error: 'boom', retryDelayMs: 0, permanent: true }]);
    const after = await list(root.id);
    assert.deepEqual(
      after.map((job) => [job.id, job.status]),
      [
        [fanIn.id, 'CANCELLED'],
        [runAnyway.id, 'PENDING'],
        [late.id, 'CANCELLED'],
      ],
    );
    assert.deepEqual(
      (await list(fanIn.id)).map((job) => [job.id, job.status]),
      [[chained.id, 'CANCELLED']],
    );
  });

  it('still lists the dependents of a job that was deleted', async () => {
    const [done, next] = await t.store.enqueueMany([{ kind: 'k' }, { kind: 'k', dependsOn: [{ index: 0 }] }]);
    assert.ok(done && next);
    const lease = await claimOne(t, done.id);
    await t.store.complete([{ ...lease, resultJson: 'null' }]);
    assert.equal((await t.store.getJob(next.id))?.status, 'PENDING');
    const pruned = await t.store.pruneFinished({
      status: 'SUCCEEDED',
      kind: 'k',
      olderThanMs: 0,
      limit: 10,
      now: new Date(Date.now() + 60_000),
    });
    assert.equal(pruned, 1);
    assert.equal(await t.store.getJob(done.id), undefined);
    assert.deepEqual(idsOf(await t.store.listDependents({ id: done.id, limit: 10 })), [next.id]);
  });
});

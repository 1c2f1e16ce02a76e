// A batch inserts its jobs with dependencies that set the same fields with one INSERT, each row
// with its own start (waiting, due at once, scheduled, cancelled by a failed dependency), and a
// job that depends on one of the run by index in the next INSERT, once that job's id is known.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { dependencyEdges } from '../helpers/index.js';
import { describeStore, later, leaseOf, type StoreCase } from './store-fixture.js';

async function finish(t: StoreCase, id: number, outcome: 'succeed' | 'fail'): Promise<void> {
  const claimed = await t.claim(100, { kinds: ['k'] });
  const job = claimed.find((c) => c.id === id);
  assert.ok(job, `job ${id} was claimed`);
  await t.store.release(claimed.filter((c) => c.id !== id).map(leaseOf));
  if (outcome === 'succeed') await t.store.complete([{ ...leaseOf(job), resultJson: 'null' }]);
  else await t.store.fail([{ ...leaseOf(job), error: 'boom', retryDelayMs: 0, permanent: true }]);
}

describeStore('batches of jobs with dependencies', (t) => {
  it('starts each job of a run by its own dependencies, and records edges for the waiting ones to the dependencies that have not succeeded', async () => {
    const [pending, done, failed] = await t.store.enqueueMany([{ kind: 'k' }, { kind: 'k' }, { kind: 'k' }]);
    assert.ok(pending && done && failed);
    await finish(t, done.id, 'succeed');
    await finish(t, failed.id, 'fail');
    const tomorrow = later(await t.store.now(), 86_400_000);
    const jobs = await t.store.enqueueMany([
      { kind: 'd', dependsOn: [pending.id] },
      { kind: 'd', dependsOn: [done.id] },
      { kind: 'd', dependsOn: [failed.id, done.id] },
      { kind: 'd', dependsOn: [failed.id], onDependencyFailure: 'run' },
      { kind: 'd', dependsOn: [{ index: 0 }, done.id] },
      { kind: 'd', dependsOn: [done.id], runAt: tomorrow },
      { kind: 'd', dependsOn: [pending.id], idempotencyKey: 'once' },
      { kind: 'd', dependsOn: [pending.id], idempotencyKey: 'once' },
    ]);
    assert.deepEqual(
      jobs.map((j) => j.status),
      ['WAITING', 'PENDING', 'CANCELLED', 'PENDING', 'WAITING', 'SCHEDULED', 'WAITING', 'WAITING'],
    );
    const [waiting, , cancelled, , chained, , keyed, again] = jobs;
    assert.ok(waiting && cancelled && chained && keyed && again);
    assert.equal(cancelled.lastError, `dependency ${failed.id} ended FAILED`);
    assert.ok(cancelled.finishedAt);
    assert.deepEqual(chained.dependsOn, [waiting.id, done.id]);
    assert.deepEqual([keyed.created, again.created, again.id], [true, false, keyed.id]);
    for (const job of jobs) assert.equal((await t.store.getJob(job.id))?.status, job.status);
    const edges = await dependencyEdges(t.db);
    assert.deepEqual(
      edges.map((e) => [e.jobId, e.dependsOnId]),
      [
        [waiting.id, pending.id],
        // SQLite writes none to a dependency that succeeded (it never changes again); PostgreSQL's
        // index holds the waiting job's whole list.
        ...(t.db.dialect === 'postgres' ? [[chained.id, done.id]] : []),
        [chained.id, waiting.id],
        [keyed.id, pending.id],
      ].sort((a, b) => (a[0] as number) - (b[0] as number) || (a[1] as number) - (b[1] as number)),
    );
    await finish(t, pending.id, 'succeed');
    assert.equal((await t.store.getJob(waiting.id))?.status, 'PENDING');
    assert.equal((await t.store.getJob(keyed.id))?.status, 'PENDING');
    assert.equal((await t.store.getJob(chained.id))?.status, 'WAITING');
  });
});

// A dependency deleted by hand before it succeeded counts as one that did not succeed (as a
// missing id does at enqueue): the jobs waiting for it are cancelled or released, never left
// WAITING for a job that is gone.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { JobStatus } from '@nudge/core';
import type { EnqueuedJob } from '@nudge/store';
import { dependencyEdges, rawQuery } from '../helpers/index.js';
import { describeStore, type StoreCase } from './store-fixture.js';

async function statuses(t: StoreCase, jobs: readonly EnqueuedJob[]): Promise<(JobStatus | undefined)[]> {
  return Promise.all(jobs.map(async (job) => (await t.store.getJob(job.id))?.status));
}

async function edgesOf(t: StoreCase, id: number): Promise<number> {
  return (await dependencyEdges(t.db)).filter((e) => e.jobId === id || e.dependsOnId === id).length;
}

describeStore('deleted dependencies', (t) => {
  it('deleting an unfinished dependency cancels what cancels on failure, down the chain, and releases the rest', async () => {
    const flow = await t.store.enqueueMany([
      { kind: 'a' },
      { kind: 'a' },
      { kind: 'k', dependsOn: [{ index: 0 }] },
      { kind: 'k', dependsOn: [{ index: 2 }] },
      { kind: 'k', dependsOn: [{ index: 0 }], onDependencyFailure: 'run' },
      { kind: 'k', dependsOn: [{ index: 0 }, { index: 1 }], onDependencyFailure: 'run' },
    ]);
    const [gone, other, cancels, below, runs, runsLater] = flow;
    assert.ok(gone && other && cancels && below && runs && runsLater);
    await rawQuery(t.db, 'DELETE FROM nudge_jobs WHERE id = ?', [gone.id]);
    assert.deepEqual(await statuses(t, flow.slice(2)), ['CANCELLED', 'CANCELLED', 'PENDING', 'WAITING']);
    assert.equal((await t.store.getJob(cancels.id))?.lastError, `dependency ${gone.id} does not exist`);
    assert.equal((await t.store.getJob(below.id))?.lastError, `dependency ${cancels.id} ended CANCELLED`);
    assert.equal((await t.store.cancelJob(other.id)).outcome, 'changed');
    assert.deepEqual(await statuses(t, [runsLater]), ['PENDING']);
    assert.equal(await edgesOf(t, runsLater.id), 0);
  });

  it('deleting a waiting job forgets its edges and releases its own dependents', async () => {
    const flow = await t.store.enqueueMany([
      { kind: 'a' },
      { kind: 'k', dependsOn: [{ index: 0 }] },
      { kind: 'k', dependsOn: [{ index: 1 }], onDependencyFailure: 'run' },
    ]);
    const [head, waiting, after] = flow;
    assert.ok(head && waiting && after);
    await rawQuery(t.db, 'DELETE FROM nudge_jobs WHERE id = ?', [waiting.id]);
    assert.equal(await edgesOf(t, waiting.id), 0);
    assert.deepEqual(await statuses(t, [after]), ['PENDING']);
  });
});

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { rawQuery } from '../helpers/index.js';
import { describeStore, leaseOf, type StoreCase } from './store-fixture.js';
import {
  addSignal,
  addSteps,
  signalCount,
  stepNames,
  waitForSignal,
  waitSignalOf,
} from '../helpers/step-rows.js';

/** A job that finished step `fetch` and waits for signal `approve`, with no deadline. */
async function waitingForSignal(t: StoreCase, kind = 'k'): Promise<number> {
  const job = await t.store.enqueue({ kind });
  await addSteps(t.db, job.id, ['fetch']);
  await waitForSignal(t.db, job.id, 'approve');
  assert.equal((await t.store.getJob(job.id))?.status, 'WAITING');
  assert.equal(await waitSignalOf(t.db, job.id), 'approve');
  return job.id;
}

/** Asserts job `id` is `status`, waits for no signal, and still has its two steps. */
async function assertLeft(t: StoreCase, id: number, status: string): Promise<void> {
  assert.equal((await t.store.getJob(id))?.status, status);
  assert.equal(await waitSignalOf(t.db, id), null);
  assert.deepEqual(await stepNames(t.db, id), ['fetch', 'approve']);
}

describeStore('cancel and retry of a job waiting for a signal', (t) => {
  it('cancel: CANCELLED, no longer waiting; a signal is then refused; a retry runs it again', async () => {
    const id = await waitingForSignal(t);
    const cancelled = await t.store.cancelJob(id);
    assert.ok(cancelled.outcome === 'changed');
    assert.equal(cancelled.previous, 'WAITING');
    await assertLeft(t, id, 'CANCELLED');
    await assert.rejects(addSignal(t.db, id, 'approve'), /finished|can no longer reach/);
    assert.equal(await signalCount(t.db, id), 0);
    const retried = await t.store.retryJob(id);
    assert.ok(retried.outcome === 'changed');
    assert.equal(retried.job.status, 'PENDING');
    await assertLeft(t, id, 'PENDING');
    const [claimed] = await t.claim(1);
    assert.equal(claimed?.id, id);
  });

  it('a wait made by Store.suspend: cancelled, then retried, it is claimed again and can wait again', async () => {
    const job = await t.store.enqueue({ kind: 'k' });
    const [claimed] = await t.claim(1);
    assert.equal(claimed?.id, job.id);
    assert.ok(claimed);
    const name = 'approve';
    const suspended = await t.store.suspend({
      ...leaseOf(claimed),
      name,
      attempt: 1,
      wait: { type: 'signal' },
    });
    assert.equal(suspended?.status, 'WAITING');
    assert.equal(await waitSignalOf(t.db, job.id), name);
    assert.equal((await t.store.cancelJob(job.id)).outcome, 'changed');
    assert.equal(await waitSignalOf(t.db, job.id), null);
    const retried = await t.store.retryJob(job.id);
    assert.ok(retried.outcome === 'changed');
    assert.equal(retried.job.status, 'PENDING');
    assert.equal(await waitSignalOf(t.db, job.id), null);
    const [again] = await t.claim(1);
    assert.equal(again?.id, job.id);
    assert.ok(again);
    const waitsAgain = await t.store.suspend({
      ...leaseOf(again),
      name,
      attempt: 1,
      wait: { type: 'signal' },
    });
    assert.equal(waitsAgain?.status, 'WAITING', 'the kept wait step waits again');
    await addSignal(t.db, job.id, name);
    assert.equal((await t.store.getJob(job.id))?.status, 'PENDING', 'and the signal ends it');
  });

  it('bulk cancel takes signal waits, by default and by status; a bulk retry brings them back', async () => {
    const byDefault = await waitingForSignal(t, 'a');
    const byStatus = await waitingForSignal(t, 'b');
    const other = await t.store.enqueue({ kind: 'b' });
    assert.equal((await t.store.cancelJobs({ kind: 'a' })).changed, 1);
    const result = await t.store.cancelJobs({ kind: 'b', statuses: ['WAITING'] });
    assert.equal(result.changed, 1, 'only the WAITING job of kind b');
    assert.deepEqual(result.running, []);
    for (const id of [byDefault, byStatus]) await assertLeft(t, id, 'CANCELLED');
    assert.equal((await t.store.getJob(other.id))?.status, 'PENDING');
    assert.equal((await t.store.retryJobs({ status: 'CANCELLED' })).changed, 2);
    for (const id of [byDefault, byStatus]) await assertLeft(t, id, 'PENDING');
  });

  it('a cancelled signal wait retried with resetSteps comes back PENDING without steps, its signals kept', async () => {
    const job = await t.store.enqueue({ kind: 'k' });
    await addSignal(t.db, job.id, 'early');
    await addSteps(t.db, job.id, ['fetch']);
    await waitForSignal(t.db, job.id, 'approve');
    await t.store.cancelJob(job.id);
    const retried = await t.store.retryJob(job.id, undefined, { resetSteps: true });
    assert.ok(retried.outcome === 'changed');
    assert.equal(retried.job.status, 'PENDING');
    assert.equal(await waitSignalOf(t.db, job.id), null);
    assert.deepEqual(await stepNames(t.db, job.id), []);
    assert.equal(await signalCount(t.db, job.id), 1);
  });

  it('a job retried into WAITING for its dependencies does not wait for a signal', async () => {
    const head = await t.store.enqueue({ kind: 'a' });
    const [single, bulk] = await t.store.enqueueMany([
      { kind: 'b', dependsOn: [head.id] },
      { kind: 'c', dependsOn: [head.id] },
    ]);
    assert.ok(single && bulk);
    for (const id of [single.id, bulk.id]) {
      await t.store.cancelJob(id);
      // A row left with a signal's name, as a cancel before this release left it.
      await rawQuery(t.db, "UPDATE nudge_jobs SET wait_signal = 'approve' WHERE id = ?", [id]);
    }
    const retried = await t.store.retryJob(single.id);
    assert.ok(retried.outcome === 'changed');
    assert.equal(retried.job.status, 'WAITING', 'its dependency has not finished');
    assert.equal(await waitSignalOf(t.db, single.id), null);
    assert.equal((await t.store.retryJobs({ status: 'CANCELLED', kind: 'c' })).changed, 1);
    assert.equal((await t.store.getJob(bulk.id))?.status, 'WAITING');
    assert.equal(await waitSignalOf(t.db, bulk.id), null);
  });
});

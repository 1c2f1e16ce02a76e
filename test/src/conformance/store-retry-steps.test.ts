import { it } from 'node:test';
import assert from 'node:assert/strict';
import { rawQuery } from '../helpers/index.js';
import { describeStore, leaseOf, type StoreCase } from './store-fixture.js';
import { addSignal, addSteps, signalCount, stepNames, waitSignalOf } from '../helpers/step-rows.js';

// Positions differ from the names' order: a retry clears by the order of first record.
const STEPS = ['fetch', 'charge', 'archive', 'email'];

/** A job of kind `k` that recorded {@link STEPS}, got a signal, then failed for good. */
async function failedWithSteps(t: StoreCase): Promise<number> {
  const job = await t.store.enqueue({ kind: 'k', maxAttempts: 1 });
  await addSignal(t.db, job.id, 'approve');
  await addSteps(t.db, job.id, STEPS);
  const [claimed] = await t.claim(1);
  assert.equal(claimed?.id, job.id);
  await t.store.fail([{ ...leaseOf(claimed), error: 'boom', retryDelayMs: 0 }]);
  assert.equal((await t.store.getJob(job.id))?.status, 'FAILED');
  return job.id;
}

describeStore('retry and steps', (t) => {
  it('keeps every step and signal by default, so the job resumes where it failed', async () => {
    const id = await failedWithSteps(t);
    const retried = await t.store.retryJob(id);
    assert.equal(retried.outcome, 'changed');
    assert.equal((await t.store.getJob(id))?.status, 'PENDING');
    assert.deepEqual(await stepNames(t.db, id), STEPS);
    assert.equal(await signalCount(t.db, id), 1);
    const [again] = await t.claim(1);
    assert.equal(again?.id, id, 'the retried job runs again');
  });

  it('fromStep clears that step and every step recorded after it, and only those', async () => {
    const id = await failedWithSteps(t);
    const other = await failedWithSteps(t);
    const retried = await t.store.retryJob(id, undefined, { fromStep: 'archive' });
    assert.equal(retried.outcome, 'changed');
    assert.deepEqual(await stepNames(t.db, id), ['fetch', 'charge']);
    assert.equal(await signalCount(t.db, id), 1, 'signals were sent: they stay');
    assert.deepEqual(await stepNames(t.db, other), STEPS, "another job's steps are untouched");
    await t.store.cancelJob(id);
    assert.equal((await t.store.retryJob(id, undefined, { fromStep: 'fetch' })).outcome, 'changed');
    assert.deepEqual(await stepNames(t.db, id), [], 'from the first step: all of them');
  });

  it('fromStep of the last step clears it alone', async () => {
    const id = await failedWithSteps(t);
    await t.store.retryJob(id, undefined, { fromStep: 'email' });
    assert.deepEqual(await stepNames(t.db, id), ['fetch', 'charge', 'archive']);
  });

  it('resetSteps clears every step and keeps the signals', async () => {
    const id = await failedWithSteps(t);
    const other = await failedWithSteps(t);
    const retried = await t.store.retryJob(id, undefined, { resetSteps: true });
    assert.ok(retried.outcome === 'changed');
    assert.equal(retried.job.status, 'PENDING');
    assert.deepEqual(await stepNames(t.db, id), []);
    assert.equal(await signalCount(t.db, id), 1);
    assert.deepEqual(await stepNames(t.db, other), STEPS);
  });

  it('resetSteps: false, or an empty options object, keeps the steps', async () => {
    const id = await failedWithSteps(t);
    await t.store.retryJob(id, undefined, { resetSteps: false });
    assert.deepEqual(await stepNames(t.db, id), STEPS);
    await t.store.cancelJob(id);
    await t.store.retryJob(id, undefined, {});
    assert.deepEqual(await stepNames(t.db, id), STEPS);
  });

  it('a retry refused as a conflict clears nothing', async () => {
    const job = await t.store.enqueue({ kind: 'k' });
    await addSteps(t.db, job.id, STEPS);
    for (const steps of [{ resetSteps: true }, { fromStep: 'fetch' }, { fromStep: 'missing' }]) {
      const refused = await t.store.retryJob(job.id, undefined, steps);
      assert.equal(refused.outcome, 'conflict', 'a PENDING job: conflict before any step check');
    }
    const [claimed] = await t.claim(1);
    assert.ok(claimed);
    assert.equal((await t.store.retryJob(job.id, undefined, { resetSteps: true })).outcome, 'conflict');
    await t.store.complete([{ ...leaseOf(claimed), resultJson: '1' }]);
    assert.equal((await t.store.retryJob(job.id, undefined, { resetSteps: true })).outcome, 'conflict');
    assert.deepEqual(await stepNames(t.db, job.id), STEPS);
  });

  it('a retry blocked by a failed dependency clears nothing', async () => {
    const [head, dependent] = await t.store.enqueueMany([
      { kind: 'a', maxAttempts: 1 },
      { kind: 'b', dependsOn: [{ index: 0 }], onDependencyFailure: 'cancel' },
    ]);
    assert.ok(head && dependent);
    await addSteps(t.db, dependent.id, STEPS);
    const [claimed] = await t.claim(1, { kinds: ['a'] });
    assert.ok(claimed);
    await t.store.fail([{ ...leaseOf(claimed), error: 'no', retryDelayMs: 0, permanent: true }]);
    assert.equal((await t.store.getJob(dependent.id))?.status, 'CANCELLED');
    for (const steps of [{ resetSteps: true }, { fromStep: 'charge' }]) {
      const blocked = await t.store.retryJob(dependent.id, undefined, steps);
      assert.equal(blocked.outcome, 'blocked');
    }
    assert.deepEqual(await stepNames(t.db, dependent.id), STEPS);
  });

  it('fromStep naming no step of the job is STEP_NOT_FOUND, and changes nothing', async () => {
    const id = await failedWithSteps(t);
    const before = await t.store.getJob(id);
    await assert.rejects(t.store.retryJob(id, undefined, { fromStep: 'refund' }), (error: Error) => {
      assert.equal((error as { code?: string }).code, 'STEP_NOT_FOUND');
      assert.match(error.message, new RegExp(`job ${id} has no step named "refund"`));
      return true;
    });
    assert.deepEqual(await t.store.getJob(id), before, 'still FAILED, same version');
    assert.deepEqual(await stepNames(t.db, id), STEPS);
    const plain = await t.store.enqueue({ kind: 'k' });
    await t.store.cancelJob(plain.id);
    await assert.rejects(t.store.retryJob(plain.id, undefined, { fromStep: 'fetch' }), {
      code: 'STEP_NOT_FOUND',
    });
    assert.equal((await t.store.getJob(plain.id))?.status, 'CANCELLED', 'a job without steps at all');
    assert.deepEqual(await t.store.retryJob(424_242, undefined, { fromStep: 'x' }), { outcome: 'not-found' });
  });

  it('refuses fromStep with resetSteps, or a fromStep out of bounds, with INVALID_REQUEST', async () => {
    const id = await failedWithSteps(t);
    const refusals: [object, RegExp][] = [
      [{ fromStep: 'charge', resetSteps: true }, /give fromStep or resetSteps, not both/],
      [{ fromStep: '' }, /fromStep must be a step name of 1 to 200 characters/],
      [{ fromStep: 'x'.repeat(201) }, /fromStep must be a step name of 1 to 200 characters/],
    ];
    for (const [steps, message] of refusals) {
      await assert.rejects(t.store.retryJob(id, undefined, steps), { code: 'INVALID_REQUEST', message });
    }
    assert.equal((await t.store.getJob(id))?.status, 'FAILED');
    assert.deepEqual(await stepNames(t.db, id), STEPS);
    // 200 characters counted as code points: 200 emoji are a valid name (it names no step).
    await assert.rejects(t.store.retryJob(id, undefined, { fromStep: '🙂'.repeat(200) }), {
      code: 'STEP_NOT_FOUND',
    });
  });

  it('clears wait_signal (a row left with one, as a cancel before this release did)', async () => {
    const id = await failedWithSteps(t);
    await rawQuery(t.db, "UPDATE nudge_jobs SET wait_signal = 'approve' WHERE id = ?", [id]);
    const retried = await t.store.retryJob(id, undefined, { fromStep: 'charge' });
    assert.equal(retried.outcome, 'changed');
    assert.equal(await waitSignalOf(t.db, id), null);
    assert.deepEqual(await stepNames(t.db, id), ['fetch']);
  });
});

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { installPoisonRows } from '../helpers/index.js';
import { describeStore, leaseOf, type StoreCase } from './store-fixture.js';
import { addSignal, addSteps, signalCount, stepNames } from '../helpers/step-rows.js';

/**
 * Jobs of `kind` that each recorded the steps of its entry of `stepsOf` (none for an empty one),
 * got a signal, then failed for good. @returns their ids, in that order
 */
async function failedJobs(
  t: StoreCase,
  kind: string,
  stepsOf: readonly (readonly string[])[],
): Promise<number[]> {
  const jobs = await t.store.enqueueMany(stepsOf.map(() => ({ kind, maxAttempts: 1 })));
  const ids = jobs.map((job) => job.id);
  for (const [index, id] of ids.entries()) {
    await addSignal(t.db, id, 'approve');
    await addSteps(t.db, id, stepsOf[index] ?? []);
  }
  const claimed = await t.claim(ids.length, { kinds: [kind] });
  assert.equal(claimed.length, ids.length);
  await t.store.fail(claimed.map((job) => ({ ...leaseOf(job), error: 'boom', retryDelayMs: 0 })));
  return ids;
}

const FULL = ['fetch', 'charge', 'archive', 'email'];

describeStore('bulk retry and steps', (t) => {
  it('keeps every step by default', async () => {
    const ids = await failedJobs(t, 'a', [FULL, ['fetch']]);
    assert.equal((await t.store.retryJobs({ status: 'FAILED' })).changed, 2);
    assert.deepEqual(await Promise.all(ids.map((id) => stepNames(t.db, id))), [FULL, ['fetch']]);
  });

  it('resetSteps clears every step of the jobs it retries, and keeps their signals', async () => {
    const ids = await failedJobs(t, 'a', [FULL, ['fetch'], []]);
    const [untouched] = await failedJobs(t, 'b', [FULL]);
    assert.ok(untouched !== undefined);
    const result = await t.store.retryJobs({ status: 'FAILED', kind: 'a', resetSteps: true });
    assert.equal(result.changed, 3);
    for (const id of ids) {
      assert.deepEqual(await stepNames(t.db, id), []);
      assert.equal(await signalCount(t.db, id), 1);
      assert.equal((await t.store.getJob(id))?.status, 'PENDING');
    }
    assert.deepEqual(await stepNames(t.db, untouched), FULL, 'a job the filter leaves out keeps its steps');
  });

  it('fromStep clears from that step in the jobs that recorded it; the others keep all their steps', async () => {
    const [reached, before, other, none] = await failedJobs(t, 'a', [
      FULL,
      ['fetch'],
      ['fetch', 'refund', 'email'],
      [],
    ]);
    assert.ok(reached !== undefined && before !== undefined && other !== undefined && none !== undefined);
    const queue = (await t.store.getJob(reached))?.queue;
    // With filters that bind values of their own, before the step's name.
    const result = await t.store.retryJobs({
      status: 'FAILED',
      queue,
      finishedAfter: new Date(0),
      finishedBefore: new Date(Date.now() + 3_600_000),
      fromStep: 'charge',
    });
    assert.equal(result.changed, 4, 'every job of the filter is retried');
    assert.deepEqual(await stepNames(t.db, reached), ['fetch']);
    assert.deepEqual(await stepNames(t.db, before), ['fetch'], 'failed before reaching charge: kept');
    assert.deepEqual(await stepNames(t.db, other), ['fetch', 'refund', 'email'], 'no charge step: kept');
    assert.deepEqual(await stepNames(t.db, none), []);
    for (const id of [reached, before, other, none]) {
      assert.equal((await t.store.getJob(id))?.status, 'PENDING');
      assert.equal(await signalCount(t.db, id), 1);
    }
  });

  it('refuses fromStep with resetSteps before any job changes', async () => {
    const [id] = await failedJobs(t, 'a', [FULL]);
    assert.ok(id !== undefined);
    await assert.rejects(t.store.retryJobs({ status: 'FAILED', fromStep: 'charge', resetSteps: true }), {
      code: 'INVALID_REQUEST',
      message: /give fromStep or resetSteps, not both/,
    });
    await assert.rejects(t.store.retryJobs({ status: 'FAILED', fromStep: '' }), { code: 'INVALID_REQUEST' });
    assert.equal((await t.store.getJob(id))?.status, 'FAILED');
    assert.deepEqual(await stepNames(t.db, id), FULL);
  });

  it('a job the database refuses keeps its steps; the rest of the page is retried and cleared', async () => {
    const [a, bad, c] = await failedJobs(t, 'a', [FULL, FULL, FULL]);
    assert.ok(a !== undefined && bad !== undefined && c !== undefined);
    const poison = await installPoisonRows(t.db);
    await poison.poison(bad);
    const result = await t.store.retryJobs({ status: 'FAILED', resetSteps: true });
    assert.deepEqual([result.changed, result.isolated], [2, 1]);
    assert.deepEqual(await stepNames(t.db, a), []);
    assert.deepEqual(await stepNames(t.db, c), []);
    assert.deepEqual(await stepNames(t.db, bad), FULL, 'the refused job keeps every step');
    assert.equal((await t.store.getJob(bad))?.status, 'FAILED');
    const again = await t.store.retryJobs({ status: 'FAILED', fromStep: 'archive' });
    assert.deepEqual([again.changed, again.isolated], [0, 1]);
    assert.deepEqual(await stepNames(t.db, bad), FULL);
  });
});

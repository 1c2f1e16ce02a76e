// A retried job that waits for a dependency is released by that dependency's outcome even when
// the dependency had finished before the job was enqueued (so nothing had marked it as having
// dependents). Found by the model test: the dependent stayed WAITING for good.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { describeStore, leaseOf } from './store-fixture.js';

describeStore('retry of a dependent marks its dependencies', (t) => {
  it('bulk: a dependency cancelled before its dependent existed, both retried, then succeeds', async () => {
    const [head] = await t.store.enqueueMany([{ kind: 'a' }]);
    assert.ok(head);
    await t.store.cancelJobs({});
    const [dependent] = await t.store.enqueueMany([{ kind: 'a', dependsOn: [head.id] }]);
    assert.equal(dependent?.status, 'CANCELLED');
    const retried = await t.store.retryJobs({ status: 'CANCELLED' });
    assert.equal(retried.changed, 2);
    assert.equal((await t.store.getJob(dependent.id))?.status, 'WAITING');
    const [claimed] = await t.claim(5);
    assert.equal(claimed?.id, head.id, 'only the head is claimable');
    await t.store.complete([{ ...leaseOf(claimed), resultJson: null }]);
    assert.equal((await t.store.getJob(dependent.id))?.status, 'PENDING');
  });

  it('one by one: the dependency retried first, then the dependent, then the dependency succeeds', async () => {
    const [head] = await t.store.enqueueMany([{ kind: 'a' }]);
    assert.ok(head);
    await t.store.cancelJob(head.id);
    const [dependent] = await t.store.enqueueMany([{ kind: 'a', dependsOn: [head.id] }]);
    assert.equal(dependent?.status, 'CANCELLED');
    assert.equal((await t.store.retryJob(head.id)).outcome, 'changed');
    assert.equal((await t.store.retryJob(dependent.id)).outcome, 'changed');
    assert.equal((await t.store.getJob(dependent.id))?.status, 'WAITING');
    const [claimed] = await t.claim(5);
    assert.equal(claimed?.id, head.id, 'only the head is claimable');
    await t.store.complete([{ ...leaseOf(claimed), resultJson: null }]);
    assert.equal((await t.store.getJob(dependent.id))?.status, 'PENDING');
  });

  it('bulk: a dependent of a dependency the command refuses does not wait for it', async () => {
    const [head] = await t.store.enqueueMany([{ kind: 'a', maxAttempts: 1 }]);
    assert.ok(head);
    const [middle, tail] = await t.store.enqueueMany([
      { kind: 'a', dependsOn: [head.id] },
      { kind: 'a', dependsOn: [{ index: 0 }] },
    ]);
    assert.ok(middle && tail);
    const [claimed] = await t.claim(1);
    await t.store.fail([{ ...leaseOf(claimed!), error: 'x', retryDelayMs: 0, permanent: true }]);
    assert.equal((await t.store.getJob(tail.id))?.status, 'CANCELLED');
    // The head stays FAILED, so the middle is refused; the tail must not wait for it.
    await t.store.retryJobs({ status: 'CANCELLED' });
    assert.equal((await t.store.getJob(middle.id))?.status, 'CANCELLED');
    assert.equal((await t.store.getJob(tail.id))?.status, 'CANCELLED');
  });

  it('bulk: a dependent of a refused dependency cancels again at once, though another dependency has not finished', async () => {
    const [running, gone] = await t.store.enqueueMany([{ kind: 'a' }, { kind: 'b' }]);
    assert.ok(running && gone);
    assert.equal((await t.store.cancelJob(gone.id)).outcome, 'changed');
    // Both cancelled at enqueue: the middle by the cancelled job, the tail by the middle.
    const [middle, tail] = await t.store.enqueueMany([
      { kind: 'c', queue: 'q2', dependsOn: [gone.id] },
      { kind: 'c', queue: 'q2', dependsOn: [running.id, { index: 0 }] },
    ]);
    assert.ok(middle && tail);
    assert.deepEqual([middle.status, tail.status], ['CANCELLED', 'CANCELLED']);
    // The command retries both; the middle is refused (its dependency is not retried), so the tail,
    // which cancels on it, is cancelled again, not left WAITING behind the unfinished one for good.
    await t.store.retryJobs({ status: 'CANCELLED', queue: 'q2' });
    assert.equal((await t.store.getJob(middle.id))?.status, 'CANCELLED');
    const after = await t.store.getJob(tail.id);
    assert.equal(after?.status, 'CANCELLED');
    assert.equal(after?.lastError, `dependency ${middle.id} did not succeed`);
  });
});

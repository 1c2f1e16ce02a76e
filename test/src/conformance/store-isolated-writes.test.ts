import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { IsolatedWrite, JobLease, Store } from '@nudge/store';
import { installPoisonRows } from '@nudge/test-databases';
import { KINDS, LEASE_MS, describeStore, later, leaseOf, type StoreCase } from './store-fixture.js';

/**
 * Three jobs of kind `k` enqueued (with `options`), claimed when `claim` is given (claims are not
 * isolated: see docs/reliability.md), then the middle one poisoned; @returns their ids, and the
 * leases when claimed.
 */
async function threeWithPoisonedMiddle(
  t: StoreCase,
  options: { delayMs?: number; claim?: boolean } = {},
): Promise<{ ids: [number, number, number]; leases: JobLease[] }> {
  const jobs = await t.store.enqueueMany(
    [0, 1, 2].map(() => ({ kind: 'k', ...(options.delayMs ? { delayMs: options.delayMs } : {}) })),
  );
  const [a, b, c] = jobs.map((job) => job.id);
  assert.ok(a !== undefined && b !== undefined && c !== undefined);
  const leases = options.claim ? (await t.claim(3)).map(leaseOf).sort((x, y) => x.id - y.id) : [];
  const poison = await installPoisonRows(t.db);
  await poison.poison(b);
  return { ids: [a, b, c], leases };
}

/** Every isolated write `store` reports from now on. */
function isolatedWritesOf(store: Store): IsolatedWrite[] {
  const seen: IsolatedWrite[] = [];
  store.onIsolatedWrite((write) => seen.push(write));
  return seen;
}

/** The poisoned job's row: still as it was, its `last_error` naming the refused write. */
async function assertLeftWithNote(
  t: StoreCase,
  id: number,
  status: string,
  operation: string,
): Promise<void> {
  const job = await t.store.getJob(id);
  assert.equal(job?.status, status);
  assert.match(job?.lastError ?? '', new RegExp(`could not write this job's ${operation}.*poisoned job`));
}

describeStore('isolated writes: one bad row never blocks the others', (t) => {
  for (const outcome of ['complete', 'fail', 'release'] as const) {
    it(`${outcome}: the batch is written without the refused row, which stays RUNNING with a note`, async () => {
      const {
        ids: [a, bad, c],
        leases,
      } = await threeWithPoisonedMiddle(t, { claim: true });
      const seen = isolatedWritesOf(t.store);
      assert.equal(leases.length, 3);
      const written =
        outcome === 'complete'
          ? await t.store.complete(leases.map((l) => ({ ...l, resultJson: '1' })))
          : outcome === 'fail'
            ? await t.store.fail(leases.map((l) => ({ ...l, error: 'x', retryDelayMs: 0 })))
            : await t.store.release(leases);
      assert.deepEqual(
        written.map((w) => w.id).sort((x, y) => x - y),
        [a, c],
      );
      assert.deepEqual(
        seen.map((w) => [w.operation, w.jobId]),
        [[outcome, bad]],
      );
      assert.match(seen[0]?.error ?? '', /poisoned job/);
      await assertLeftWithNote(t, bad, 'RUNNING', outcome);
    });
  }

  it('heartbeat and progress: the refused lease is not reported as held', async () => {
    const {
      ids: [a, bad, c],
      leases,
    } = await threeWithPoisonedMiddle(t, { claim: true });
    const seen = isolatedWritesOf(t.store);
    const held = await t.store.heartbeat(leases, LEASE_MS, later(await t.store.now(), 1000));
    assert.deepEqual(
      held.map((l) => l.id).sort((x, y) => x - y),
      [a, c],
    );
    const progressed = await t.store.setProgress(leases.map((l) => ({ ...l, progressJson: '{"p":1}' })));
    assert.deepEqual(
      progressed.map((l) => l.id).sort((x, y) => x - y),
      [a, c],
    );
    assert.deepEqual(
      seen.map((w) => [w.operation, w.jobId]),
      [
        ['heartbeat', bad],
        ['progress', bad],
      ],
    );
  });

  it('sweep: recovers the rest of the page and pushes the refused lease back', async () => {
    const {
      ids: [, bad],
    } = await threeWithPoisonedMiddle(t, { claim: true });
    const seen = isolatedWritesOf(t.store);
    const expiredAt = later(await t.store.now(), LEASE_MS + 1000);
    const first = await t.store.sweepExpired({ retryDelayMs: () => 0, now: expiredAt });
    assert.deepEqual([first.requeued, first.failed, first.isolated], [2, 0, 1]);
    assert.deepEqual(
      seen.map((w) => [w.operation, w.jobId]),
      [['sweep', bad]],
    );
    await assertLeftWithNote(t, bad, 'RUNNING', 'sweep');
    const lease = (await t.store.getJob(bad))?.leaseExpiresAt;
    assert.ok(lease && lease.getTime() >= expiredAt.getTime() + 60_000, 'lease pushed back a minute');
    // The next sweep at the same time meets nothing: the pushed-back lease has not expired.
    const second = await t.store.sweepExpired({ retryDelayMs: () => 0, now: expiredAt });
    assert.deepEqual([second.requeued, second.failed, second.isolated], [0, 0, 0]);
  });

  it('promotion: promotes the rest of the page and moves the refused run_at later', async () => {
    const {
      ids: [a, bad, c],
    } = await threeWithPoisonedMiddle(t, { delayMs: 1000 });
    const seen = isolatedWritesOf(t.store);
    const dueAt = later(await t.store.now(), 5000);
    const first = await t.store.promoteScheduled({ now: dueAt });
    assert.deepEqual([first.promoted, first.isolated], [2, 1]);
    for (const id of [a, c]) assert.equal((await t.store.getJob(id))?.status, 'PENDING');
    await assertLeftWithNote(t, bad, 'SCHEDULED', 'promote');
    const runAt = (await t.store.getJob(bad))?.runAt;
    assert.ok(runAt && runAt.getTime() >= dueAt.getTime() + 60_000, 'run_at moved a minute later');
    assert.deepEqual(
      seen.map((w) => [w.operation, w.jobId]),
      [['promote', bad]],
    );
    const second = await t.store.promoteScheduled({ now: dueAt });
    assert.deepEqual([second.promoted, second.isolated], [0, 0]);
  });

  it('retention: the refused row is kept, and the batch is topped up past it', async () => {
    const jobs = await t.store.enqueueMany([{ kind: 'k' }, { kind: 'k' }, { kind: 'k' }]);
    const leases = (await t.claim(3)).map(leaseOf).sort((x, y) => x.id - y.id);
    const [first, ...rest] = leases;
    assert.ok(first);
    // The job to poison finishes first, so the oldest-first batch starts with it.
    const now = await t.store.now();
    await t.store.complete([{ ...first, resultJson: null }], now);
    await t.store.complete(
      rest.map((l) => ({ ...l, resultJson: null })),
      later(now, 1000),
    );
    const poison = await installPoisonRows(t.db);
    const bad = first.id;
    await poison.poison(bad);
    const seen = isolatedWritesOf(t.store);
    const prune = {
      status: 'SUCCEEDED',
      kind: 'k',
      olderThanMs: 0,
      limit: 2,
      now: later(now, 5000),
    } as const;
    assert.equal(await t.store.pruneFinished(prune), 2);
    assert.equal((await t.store.getJob(bad))?.status, 'SUCCEEDED');
    for (const job of jobs.slice(1)) assert.equal(await t.store.getJob(job.id), undefined);
    assert.deepEqual(
      seen.map((w) => [w.operation, w.jobId]),
      [['retention', bad]],
    );
    assert.equal(await t.store.pruneFinished(prune), 0);
  });

  it('bulk cancel: cancels the rest of the page, the refused row stays as it was', async () => {
    const {
      ids: [a, bad, c],
    } = await threeWithPoisonedMiddle(t);
    const seen = isolatedWritesOf(t.store);
    const result = await t.store.cancelJobs({});
    assert.deepEqual([result.changed, result.isolated], [2, 1]);
    for (const id of [a, c]) assert.equal((await t.store.getJob(id))?.status, 'CANCELLED');
    await assertLeftWithNote(t, bad, 'PENDING', 'cancel');
    assert.deepEqual(
      seen.map((w) => [w.operation, w.jobId]),
      [['cancel', bad]],
    );
  });

  it('bulk retry: retries the rest of the page, the refused row stays FAILED', async () => {
    const jobs = await t.store.enqueueMany([0, 1, 2].map(() => ({ kind: 'k', maxAttempts: 1 })));
    const leases = (await t.claim(3)).map(leaseOf);
    await t.store.fail(leases.map((l) => ({ ...l, error: 'x', retryDelayMs: 0 })));
    const [a, bad, c] = jobs.map((job) => job.id);
    assert.ok(a !== undefined && bad !== undefined && c !== undefined);
    const poison = await installPoisonRows(t.db);
    await poison.poison(bad);
    const seen = isolatedWritesOf(t.store);
    const result = await t.store.retryJobs({ status: 'FAILED' });
    assert.deepEqual([result.changed, result.isolated], [2, 1]);
    for (const id of [a, c]) assert.equal((await t.store.getJob(id))?.status, 'PENDING');
    await assertLeftWithNote(t, bad, 'FAILED', 'retry');
    assert.deepEqual(
      seen.map((w) => [w.operation, w.jobId]),
      [['retry', bad]],
    );
  });

  it('unhandled kinds: fails the rest of the page, the refused row stays PENDING', async () => {
    const {
      ids: [a, bad, c],
    } = await threeWithPoisonedMiddle(t);
    const seen = isolatedWritesOf(t.store);
    const result = await t.store.failUnhandledKinds({
      graceMs: 0,
      instanceTtlMs: 60_000,
      now: later(await t.store.now(), 1000),
    });
    assert.equal(result.failed, 2);
    for (const id of [a, c]) assert.equal((await t.store.getJob(id))?.status, 'FAILED');
    await assertLeftWithNote(t, bad, 'PENDING', 'unhandled-kinds');
    assert.deepEqual(
      seen.map((w) => [w.operation, w.jobId]),
      [['unhandled-kinds', bad]],
    );
  });

  it('a cascade the database refuses isolates the outcome that set it off, not the batch', async () => {
    const [head, other] = await t.store.enqueueMany([{ kind: 'a' }, { kind: 'b' }]);
    assert.ok(head && other);
    const [dependent] = await t.store.enqueueMany([{ kind: 'c', dependsOn: [head.id] }]);
    assert.ok(dependent);
    const leases = (await t.claim(2, { kinds: KINDS })).map(leaseOf);
    assert.equal(leases.length, 2);
    const poison = await installPoisonRows(t.db);
    await poison.poison(dependent.id);
    const seen = isolatedWritesOf(t.store);
    const written = await t.store.fail(
      leases.map((l) => ({ ...l, error: 'x', retryDelayMs: 0, permanent: true })),
    );
    assert.deepEqual(
      written.map((w) => w.id),
      [other.id],
    );
    assert.deepEqual(
      seen.map((w) => [w.operation, w.jobId]),
      [['fail', head.id]],
    );
    assert.equal((await t.store.getJob(head.id))?.status, 'RUNNING');
    assert.equal((await t.store.getJob(dependent.id))?.status, 'WAITING');
  });
});

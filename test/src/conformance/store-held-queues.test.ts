// A limited queue that a claim found held back by its limits: on SQLite the store leaves it out of
// its next claims (reported held all the same) until it writes an outcome of a job it claimed
// there, or HELD_QUEUE_SKIP_MS has passed on the database clock, when another store's outcome
// may have freed room. PostgreSQL offers the queue to every claim. On both, no job waits longer.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { HELD_QUEUE_SKIP_MS, type ClaimedJob, type LimitedClaim, type Store } from '@nudge/store';
import { openStore } from '../helpers/index.js';
import { LEASE_MS, describeStore, later, leaseOf } from './store-fixture.js';

describeStore('held-back queues', (t) => {
  const claimAt = async (
    store: Store,
    now: Date,
  ): Promise<{ jobs: ClaimedJob[]; held: readonly string[] }> => {
    let limited: LimitedClaim | undefined;
    const jobs = await store.claim({
      workerId: 'w1',
      leaseMs: LEASE_MS,
      groups: [{ kinds: ['k'], limit: 5 }],
      onLimited: (found) => (limited = found),
      now,
    });
    return { jobs, held: limited?.queues ?? [] };
  };

  it('a busy key is offered again at once after this store finishes its job, and within the skip time after another store does', async () => {
    await t.store.setQueueLimits('busy', { keyConcurrency: 1 });
    const [first, second, third] = await t.store.enqueueMany(
      Array.from({ length: 3 }, () => ({ kind: 'k', queue: 'busy', concurrencyKey: 'K' })),
    );
    assert.ok(first && second && third);
    const now = await t.store.now();
    const claimed = await claimAt(t.store, now);
    assert.deepEqual(
      claimed.jobs.map((job) => job.id),
      [first.id],
    );
    assert.deepEqual(claimed.held, ['busy'], 'the key limit held the others back');
    const again = await claimAt(t.store, now);
    assert.deepEqual(again.jobs, []);
    const sqlite = t.db.dialect === 'sqlite';
    if (sqlite) assert.deepEqual(again.held, ['busy'], 'a skipped queue is still reported held');

    // Another store finishes the key's job: the queue has room, which this store may see late.
    const other = await openStore(t.db);
    try {
      await other.complete([{ ...leaseOf(claimed.jobs[0] as ClaimedJob), resultJson: 'null' }]);
    } finally {
      await other.close();
    }
    const soon = await claimAt(t.store, now);
    const taken = soon.jobs.length > 0 ? soon : await claimAt(t.store, later(now, HELD_QUEUE_SKIP_MS + 1));
    assert.deepEqual(
      taken.jobs.map((job) => job.id),
      [second.id],
    );
    if (sqlite) assert.deepEqual(soon.jobs, [], 'SQLite left the held queue out');

    // This store finishes it: its next claim, at the same moment, takes the third.
    await t.store.complete([{ ...leaseOf(taken.jobs[0] as ClaimedJob), resultJson: 'null' }]);
    const next = await claimAt(t.store, later(now, HELD_QUEUE_SKIP_MS + 1));
    assert.deepEqual(
      next.jobs.map((job) => job.id),
      [third.id],
    );
  });

  it('a claim that fills its groups from other queues still finds a queue held back by its keys', async () => {
    await t.store.setQueueLimits('busy', { keyConcurrency: 1 });
    const [first, second] = await t.store.enqueueMany(
      Array.from({ length: 2 }, () => ({ kind: 'k', queue: 'busy', concurrencyKey: 'K' })),
    );
    assert.ok(first && second);
    // Another store runs the key's first job, so this one has seen nothing held yet.
    const other = await openStore(t.db);
    try {
      const running = await claimAt(other, await t.store.now());
      assert.deepEqual(
        running.jobs.map((job) => job.id),
        [first.id],
      );
      const plain = await t.store.enqueueMany([{ kind: 'k' }, { kind: 'k' }]);
      const now = await t.store.now();
      // Full with a plain job: no group has room left to ask about the busy queue.
      const full = await t.store.claim({
        workerId: 'w1',
        leaseMs: LEASE_MS,
        groups: [{ kinds: ['k'], limit: 1 }],
        now,
      });
      assert.deepEqual(
        full.map((job) => job.id),
        [plain[0]?.id],
      );
      await other.complete([{ ...leaseOf(running.jobs[0] as ClaimedJob), resultJson: 'null' }]);
      const soon = await claimAt(t.store, now);
      const taken = soon.jobs.some((job) => job.id === second.id)
        ? soon
        : await claimAt(t.store, later(now, HELD_QUEUE_SKIP_MS + 1));
      assert.ok(
        taken.jobs.some((job) => job.id === second.id),
        'the busy key runs again within the skip time',
      );
      if (t.db.dialect === 'sqlite')
        assert.deepEqual(
          soon.jobs.map((job) => job.id),
          [plain[1]?.id],
          'SQLite left the held queue out',
        );
    } finally {
      await other.close();
    }
  });
});

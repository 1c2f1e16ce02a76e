import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { ClaimedJob, LimitedClaim, Store } from '@nudge/store';
import { openStore, rawQuery } from '../helpers/index.js';
import { LEASE_MS, describeStore, later, leaseOf } from './store-fixture.js';

describeStore('cluster-wide queue limits', (t) => {
  const claimFrom = (
    limit: number,
    options: { store?: Store; now?: Date; workerId?: string; queueLimits?: Record<string, number> } = {},
  ): Promise<{ jobs: ClaimedJob[]; limited: LimitedClaim | undefined }> => {
    let limited: LimitedClaim | undefined;
    return (options.store ?? t.store)
      .claim({
        workerId: options.workerId ?? 'w1',
        leaseMs: LEASE_MS,
        groups: [{ kinds: ['k'], limit }],
        onLimited: (held) => (limited = held),
        ...(options.queueLimits ? { queueLimits: options.queueLimits } : {}),
        ...(options.now ? { now: options.now } : {}),
      })
      .then((jobs) => ({ jobs, limited }));
  };
  const succeed = (jobs: readonly ClaimedJob[]) =>
    t.store.complete(jobs.map((job) => ({ ...leaseOf(job), resultJson: 'null' })));
  const running = async (queue: string): Promise<number> =>
    (await t.store.listQueues()).find((q) => q.name === queue)?.running ?? 0;

  it('a patch sets, keeps and removes limits, and listQueues shows them', async () => {
    const set = await t.store.setQueueLimits('api', {
      concurrency: 5,
      rateLimit: { limit: 100, intervalMs: 1_000 },
      keyConcurrency: 1,
    });
    assert.deepEqual(
      [set.name, set.paused, set.concurrency, set.rateLimit, set.keyConcurrency],
      ['api', false, 5, { limit: 100, intervalMs: 1_000 }, 1],
    );
    const kept = await t.store.setQueueLimits('api', { concurrency: null });
    assert.deepEqual(
      [kept.concurrency, kept.rateLimit, kept.keyConcurrency],
      [null, { limit: 100, intervalMs: 1_000 }, 1],
    );
    await t.store.setQueuePaused('api', true);
    const [listed] = await t.store.listQueues();
    assert.deepEqual(
      [listed?.paused, listed?.rateLimit, listed?.keyConcurrency],
      [true, { limit: 100, intervalMs: 1_000 }, 1],
    );
    const cleared = await t.store.setQueueLimits('api', { rateLimit: null, keyConcurrency: null });
    assert.deepEqual(
      [cleared.paused, cleared.concurrency, cleared.rateLimit, cleared.keyConcurrency],
      [true, null, null, null],
    );
  });

  it('concurrency caps the running jobs of the queue over every claim, and a finished job frees its slot', async () => {
    await t.store.enqueueMany(Array.from({ length: 6 }, () => ({ kind: 'k', queue: 'api' })));
    await t.store.enqueue({ kind: 'k' });
    await t.store.setQueueLimits('api', { concurrency: 2 });
    const first = await claimFrom(10);
    assert.deepEqual(first.jobs.map((j) => j.queue).sort(), ['api', 'api', 'default']);
    assert.deepEqual(first.limited?.queues, ['api']);
    assert.equal(first.limited?.retryInMs, undefined, 'no rate window is full');
    assert.deepEqual(
      (await claimFrom(10, { workerId: 'w2' })).jobs,
      [],
      'another instance finds no room either',
    );
    await succeed(first.jobs.filter((j) => j.queue === 'api').slice(0, 1));
    assert.equal((await claimFrom(10, { workerId: 'w2' })).jobs.length, 1);
    assert.equal(await running('api'), 2);
  });

  it('jobs started while the queue had no limit count against a new one, and finished ones free their slots', async () => {
    await t.store.enqueueMany(Array.from({ length: 12 }, () => ({ kind: 'k', queue: 'api' })));
    await t.store.setQueueLimits('api', { concurrency: 100 });
    const early = (await claimFrom(1)).jobs;
    await t.store.setQueueLimits('api', { concurrency: null });
    early.push(...(await claimFrom(3)).jobs);
    assert.equal(early.length, 4);
    await t.store.setQueueLimits('api', { concurrency: 6 });
    assert.equal((await claimFrom(2)).jobs.length, 2, 'the 4 running ones count');
    assert.equal((await claimFrom(2, { workerId: 'w2' })).jobs.length, 0);
    await succeed(early.slice(0, 3));
    assert.equal((await claimFrom(2, { workerId: 'w2' })).jobs.length, 2);
    assert.equal((await claimFrom(2)).jobs.length, 1);
    assert.equal(await running('api'), 6);
  });

  it('a limit lifted at run time opens the queue to every claim again', async () => {
    await t.store.enqueueMany(Array.from({ length: 4 }, () => ({ kind: 'k', queue: 'api' })));
    await t.store.setQueueLimits('api', { concurrency: 1 });
    assert.equal((await claimFrom(10)).jobs.length, 1);
    await t.store.setQueueLimits('api', { concurrency: null });
    assert.equal((await claimFrom(10)).jobs.length, 3);
  });

  it("the least of the instance's cap and the cluster limit applies", async () => {
    await t.store.enqueueMany(Array.from({ length: 6 }, () => ({ kind: 'k', queue: 'api' })));
    await t.store.setQueueLimits('api', { concurrency: 4 });
    assert.equal((await claimFrom(10, { queueLimits: { api: 1 } })).jobs.length, 1, 'the instance cap binds');
    assert.equal(
      (await claimFrom(10, { queueLimits: { api: 5 } })).jobs.length,
      3,
      'the cluster limit binds',
    );
  });

  it('a rate limit counts starts in a sliding window by the database clock, and says when it opens', async () => {
    await t.store.enqueueMany(Array.from({ length: 8 }, () => ({ kind: 'k', queue: 'api' })));
    await t.store.setQueueLimits('api', { rateLimit: { limit: 3, intervalMs: 60_000 } });
    const now = new Date(Date.now() + 1_000);
    const first = await claimFrom(2, { now });
    assert.equal(first.jobs.length, 2);
    assert.equal(first.limited?.retryInMs, undefined, 'one start is left in the window');
    assert.deepEqual(first.limited?.rateWindows, { api: 0 }, 'the window has room');
    assert.ok(
      Math.abs((first.limited?.nowMs ?? 0) - now.getTime()) < 2,
      'nowMs is the claim’s database clock',
    );
    const second = await claimFrom(10, { now: later(now, 20_000) });
    assert.equal(second.jobs.length, 1, 'finished or not, started jobs count');
    const wait = second.limited?.retryInMs ?? 0;
    assert.ok(
      wait > 39_000 && wait <= 40_600,
      `the first starts leave the window 40 s later, give or take the 600 ms grain (got ${wait} ms)`,
    );
    assert.deepEqual(second.limited?.rateWindows, { api: wait }, 'the same wait, for the queue');
    assert.ok(Math.abs((second.limited?.nowMs ?? 0) - later(now, 20_000).getTime()) < 2);
    await succeed([...first.jobs, ...second.jobs]);
    assert.deepEqual((await claimFrom(10, { now: later(now, 59_000) })).jobs, [], 'the window is still full');
    assert.equal(
      (await claimFrom(10, { now: later(now, 60_700) })).jobs.length,
      2,
      'the first two left the window (a start counts up to a hundredth of the interval longer)',
    );
    assert.equal((await claimFrom(10, { now: later(now, 80_700) })).jobs.length, 1, 'then the third');
  });

  it('keyConcurrency runs one job per key at a time without holding up other keys', async () => {
    await t.store.setQueueLimits('repos', { keyConcurrency: 1 });
    const jobs = await t.store.enqueueMany([
      ...Array.from({ length: 5 }, () => ({ kind: 'k', queue: 'repos', concurrencyKey: 'a' })),
      { kind: 'k', queue: 'repos', concurrencyKey: 'b' },
      { kind: 'k', queue: 'repos', concurrencyKey: 'c' },
      { kind: 'k', queue: 'repos' },
    ]);
    assert.equal(jobs[0]?.concurrencyKey, 'a');
    const first = await claimFrom(10);
    assert.deepEqual(
      first.jobs.map((j) => j.id).sort((x, y) => x - y),
      [jobs[0]?.id, jobs[5]?.id, jobs[6]?.id, jobs[7]?.id],
      "key a's first job, b's, c's and the keyless one: a's backlog holds nobody up",
    );
    assert.deepEqual((await claimFrom(10)).jobs, [], "every key's slot is taken");
    await succeed(first.jobs.filter((j) => j.id === jobs[0]?.id));
    assert.deepEqual(
      (await claimFrom(10)).jobs.map((j) => j.id),
      [jobs[1]?.id],
      "a's next job",
    );
  });

  it('keyConcurrency k runs up to k jobs per key beside the queue-wide concurrency', async () => {
    await t.store.setQueueLimits('repos', { keyConcurrency: 2, concurrency: 3 });
    await t.store.enqueueMany(
      ['a', 'a', 'a', 'b', 'b', 'b'].map((key) => ({ kind: 'k', queue: 'repos', concurrencyKey: key })),
    );
    const claimed = await claimFrom(10);
    assert.equal(claimed.jobs.length, 3, 'the queue-wide limit binds first');
    const more = await claimFrom(10);
    assert.deepEqual(more.jobs, []);
    await t.store.setQueueLimits('repos', { concurrency: null });
    assert.equal((await claimFrom(10)).jobs.length, 1, 'then 2 per key: 4 in all');
  });

  it('an expired lease, swept back to PENDING, frees its slot; the recovered job counts once', async () => {
    await t.store.enqueueMany([
      { kind: 'k', queue: 'api' },
      { kind: 'k', queue: 'api' },
    ]);
    await t.store.setQueueLimits('api', { concurrency: 1 });
    const [held] = (await claimFrom(10)).jobs;
    assert.ok(held);
    const expired = later(new Date(), LEASE_MS + 60_000);
    assert.deepEqual(
      (await claimFrom(10, { now: expired })).jobs,
      [],
      'an expired lease still holds its slot until swept',
    );
    await t.store.sweepExpired({ retryDelayMs: () => 0, now: expired });
    const after = (await claimFrom(10, { now: expired })).jobs;
    assert.equal(after.length, 1);
    assert.equal(await running('api'), 1);
  });

  it('a claim takes at most its limit when a limited queue with room and other queues both have due jobs', async () => {
    await t.store.enqueueMany(Array.from({ length: 10 }, () => ({ kind: 'k' })));
    await t.store.enqueueMany(Array.from({ length: 10 }, () => ({ kind: 'k', queue: 'roomy' })));
    await t.store.setQueueLimits('roomy', { concurrency: 100 });
    const taken: number[] = [];
    for (let i = 0; i < 5; i += 1) taken.push((await claimFrom(5)).jobs.length);
    assert.deepEqual(taken, [5, 5, 5, 5, 0]);
  });

  it('enqueueAndClaim never starts a job of a limited queue', async () => {
    await t.store.setQueueLimits('api', { concurrency: 10 });
    const job = await t.store.enqueueAndClaim(
      { kind: 'k', queue: 'api' },
      { workerId: 'w1', leaseMs: LEASE_MS, kinds: ['k'] },
    );
    assert.equal(job.status, 'PENDING');
  });

  it('claims racing from several stores never start more than the limits allow', async () => {
    await t.store.setQueueLimits('api', { concurrency: 3, keyConcurrency: 1 });
    await t.store.enqueueMany(
      Array.from({ length: 60 }, (_, i) => ({ kind: 'k', queue: 'api', concurrencyKey: `key-${i % 4}` })),
    );
    const stores = [t.store, await openStore(t.db), await openStore(t.db)];
    try {
      for (let round = 0; round < 5; round += 1) {
        const claims = stores.flatMap((store, s) =>
          Array.from({ length: 4 }, (_, c) => claimFrom(2, { store, workerId: `w${s}-${c}` })),
        );
        const claimed = (await Promise.all(claims)).flatMap((claim) => claim.jobs);
        assert.ok((await running('api')) <= 3, `round ${round}: at most 3 running`);
        const rows = await rawQuery<{ concurrency_key: string; n: number }>(
          t.db,
          `SELECT concurrency_key, count(*) AS n FROM nudge_jobs WHERE status = 'RUNNING' GROUP BY concurrency_key`,
        );
        assert.ok(
          rows.every((row) => Number(row.n) <= 1),
          `round ${round}: at most 1 per key`,
        );
        await succeed(claimed);
      }
    } finally {
      await Promise.all(stores.slice(1).map((store) => store.close()));
    }
  });
});

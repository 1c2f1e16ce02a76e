import { it } from 'node:test';
import assert from 'node:assert/strict';
import { rawQuery } from '../helpers/index.js';
import { LEASE_MS, describeStore, later } from './store-fixture.js';

const SELF = { workerId: 'self', leaseMs: LEASE_MS, kinds: ['k', 'a'] };

describeStore('scheduling', (t) => {
  it('a job due later is SCHEDULED and becomes claimable once promoted, by the database clock', async () => {
    const dbNow = await t.store.now();
    const job = await t.store.enqueue({ kind: 'k', runAt: later(dbNow, 60_000) });
    assert.equal(job.status, 'SCHEDULED');
    assert.equal((await t.claim(1)).length, 0, 'due in a minute by the database clock');
    const early = await t.store.promoteScheduled({ now: later(dbNow, 59_000) });
    assert.equal(early.promoted, 0);
    assert.ok(
      early.nextDueInMs !== null && Math.abs(early.nextDueInMs - 1000) <= 1,
      String(early.nextDueInMs),
    );
    assert.deepEqual(await t.store.promoteScheduled({ now: later(dbNow, 60_000) }), {
      promoted: 1,
      isolated: 0,
      nextDueInMs: null,
      // The job just promoted is runnable, on both dialects.
      runnable: true,
      nextLeaseExpiryInMs: null,
    });
    const promoted = await t.store.getJob(job.id);
    assert.equal(promoted?.status, 'PENDING');
    assert.equal(promoted?.runAt.getTime(), job.runAt.getTime(), 'run_at is kept');
    const [claimed] = await t.claim(1, { now: later(dbNow, 60_000) });
    assert.equal(claimed?.id, job.id);
  });

  it('a promotion also says whether a job is runnable and when the earliest lease expires', async () => {
    const idle = await t.store.promoteScheduled();
    assert.deepEqual(idle, {
      promoted: 0,
      isolated: 0,
      nextDueInMs: null,
      runnable: false,
      nextLeaseExpiryInMs: null,
    });
    await t.store.enqueueMany([{ kind: 'k' }, { kind: 'k' }]);
    const dbNow = later(await t.store.now(), 10);
    assert.equal((await t.store.promoteScheduled({ now: dbNow })).runnable, true);
    const [first] = await t.claim(1, { now: dbNow });
    const [second] = await t.claim(1, { now: later(dbNow, 2000) });
    assert.ok(first && second);
    const busy = await t.store.promoteScheduled({ now: later(dbNow, 500) });
    assert.equal(busy.runnable, false, 'both jobs are running');
    assert.equal(busy.nextLeaseExpiryInMs, LEASE_MS - 500, 'the earlier lease, from the given now');
    const expired = await t.store.promoteScheduled({ now: later(dbNow, LEASE_MS + 100) });
    assert.equal(expired.nextLeaseExpiryInMs, -100, 'negative once expired');
  });

  it('a plain INSERT with a future run_at is stored SCHEDULED; a past one PENDING', async () => {
    const dbNow = await t.store.now();
    const text = (date: Date) => (t.db.dialect === 'sqlite' ? date.toISOString() : date);
    await rawQuery(t.db, `INSERT INTO nudge_jobs (kind, run_at) VALUES ('k', ?), ('k', ?)`, [
      text(later(dbNow, 3_600_000)),
      text(later(dbNow, -1000)),
    ]);
    const rows = await rawQuery<{ status: string }>(t.db, 'SELECT status FROM nudge_jobs ORDER BY id');
    assert.deepEqual(
      rows.map((r) => r.status),
      ['SCHEDULED', 'PENDING'],
    );
  });

  it('promotes at most its limit, earliest first, and says when the next one is due', async () => {
    const dbNow = await t.store.now();
    const jobs = await t.store.enqueueMany(
      [3000, 1000, 2000, 9000].map((ms) => ({ kind: 'k', runAt: later(dbNow, ms) })),
    );
    const at = later(dbNow, 5000);
    assert.deepEqual(await t.store.promoteScheduled({ now: at, limit: 2 }), {
      promoted: 2,
      isolated: 0,
      nextDueInMs: 4000,
      runnable: true,
      nextLeaseExpiryInMs: null,
    });
    assert.deepEqual(await t.store.promoteScheduled({ now: at, limit: 2 }), {
      promoted: 1,
      isolated: 0,
      nextDueInMs: 4000,
      runnable: true,
      nextLeaseExpiryInMs: null,
    });
    const statuses = await Promise.all(jobs.map(async (j) => (await t.store.getJob(j.id))?.status));
    assert.deepEqual(statuses, ['PENDING', 'PENDING', 'PENDING', 'SCHEDULED']);
  });

  it('enqueueAndClaim claims for itself when nothing due is ahead in claim order', async () => {
    const { created, ...job } = await t.store.enqueueAndClaim(
      { kind: 'k', payload: { n: 1 }, maxAttempts: 2 },
      SELF,
    );
    assert.equal(created, true);
    assert.equal(job.status, 'RUNNING');
    assert.equal(job.attempts, 1);
    assert.equal(job.version, 1);
    assert.equal(job.claimedBy, 'self');
    assert.equal(job.maxAttempts, 2);
    assert.deepEqual(job.payload, { n: 1 });
    assert.ok(job.startedAt && job.leaseExpiresAt);
    assert.equal(job.leaseExpiresAt.getTime() - job.startedAt.getTime(), LEASE_MS);
    assert.deepEqual(await t.store.getJob(job.id), job);
    assert.equal((await t.claim(5)).length, 0, 'nobody else can claim it');
  });

  it('enqueueAndClaim does not jump a due job of its kinds with the same or a better priority', async () => {
    const waiting = await t.store.enqueue({ kind: 'a', priority: 0 });
    const behind = await t.store.enqueueAndClaim({ kind: 'k' }, SELF);
    assert.equal(behind.status, 'PENDING');
    assert.equal(behind.version, 0);
    assert.equal(behind.claimedBy, null);
    const ahead = await t.store.enqueueAndClaim({ kind: 'k', priority: -1 }, SELF);
    assert.equal(ahead.status, 'RUNNING', 'a better priority goes first');
    const otherKinds = await t.store.enqueueAndClaim({ kind: 'k' }, { ...SELF, kinds: ['k'] });
    assert.equal(otherKinds.status, 'PENDING', 'a due job of its own kind is ahead');
    const [first] = await t.claim(1, { kinds: ['a', 'k'] });
    assert.equal(first?.id, waiting.id);
  });

  it('enqueueAndClaim leaves a job due later SCHEDULED', async () => {
    const dbNow = await t.store.now();
    const job = await t.store.enqueueAndClaim({ kind: 'k', runAt: later(dbNow, 60_000) }, SELF);
    assert.equal(job.status, 'SCHEDULED');
    assert.equal(job.claimedBy, null);
    const past = await t.store.enqueueAndClaim({ kind: 'k', runAt: later(dbNow, -60_000) }, SELF);
    assert.equal(past.status, 'RUNNING');
  });
});

import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '@nudge/store';
import { openStore, rawQuery } from '../helpers/index.js';
import { LEASE_MS, describeStore, later } from './store-fixture.js';

describeStore('claims', (t) => {
  it('a plain INSERT of kind and payload makes a runnable PENDING job', async () => {
    await rawQuery(t.db, `INSERT INTO nudge_jobs (kind, payload) VALUES ('echo', '{"n": 1}')`);
    const [row] = await rawQuery<{ id: number }>(t.db, 'SELECT id FROM nudge_jobs');
    const job = await t.store.getJob(Number(row?.id));
    assert.ok(job);
    assert.equal(job.status, 'PENDING');
    assert.deepEqual(job.payload, { n: 1 });
    assert.equal(job.attempts, 0);
    assert.equal(job.maxAttempts, 5);
    assert.equal(job.version, 0);
    assert.equal(job.priority, 0);
    const dbNow = await t.store.now();
    assert.ok(
      Math.abs(job.runAt.getTime() - dbNow.getTime()) < 5000,
      'run_at defaults to the database clock',
    );
    const [claimed] = await t.claim(10);
    assert.ok(claimed);
    const { waitMs, ...rest } = claimed;
    assert.deepEqual(rest, {
      id: job.id,
      version: 1,
      kind: 'echo',
      queue: 'default',
      payloadJson: '{"n": 1}',
      attempt: 1,
    });
    assert.ok(waitMs !== undefined && waitMs >= 0 && waitMs < 5000, `waitMs ${waitMs}`);
    assert.equal((await t.store.getJob(job.id))?.status, 'RUNNING');
  });

  it('reports how long each claimed job waited since it came due, by the database clock', async () => {
    const now = await t.store.now();
    const a = await t.store.enqueue({ kind: 'k', runAt: later(now, -2500) });
    const b = await t.store.enqueue({ kind: 'k', runAt: later(now, -40) });
    const claimed = await t.store.claim({
      workerId: 'w',
      leaseMs: LEASE_MS,
      groups: [{ kinds: ['k'], limit: 10 }],
      now,
    });
    const waits = new Map(claimed.map((job) => [job.id, job.waitMs]));
    assert.ok(Math.abs((waits.get(a.id) ?? NaN) - 2500) < 2, `a waited ${waits.get(a.id)}`);
    assert.ok(Math.abs((waits.get(b.id) ?? NaN) - 40) < 2, `b waited ${waits.get(b.id)}`);
  });

  it('claims in (priority, run_at, id) order and never a job that is not due', async () => {
    const now = await t.store.now();
    const a = await t.store.enqueue({ kind: 'k', priority: 5, runAt: later(now, -3000) });
    const b = await t.store.enqueue({ kind: 'k', priority: -1, runAt: later(now, -1000) });
    const c = await t.store.enqueue({ kind: 'k', priority: 5, runAt: later(now, -5000) });
    const d = await t.store.enqueue({ kind: 'k', priority: 5, runAt: later(now, -5000) });
    const future = await t.store.enqueue({ kind: 'k', priority: -100, runAt: later(now, 60_000) });
    for (const expected of [[b.id], [c.id, d.id], [a.id], []]) {
      const claimed = await t.claim(expected.length || 1, { now });
      assert.deepEqual(
        claimed.map((j) => j.id).sort((x, y) => x - y),
        expected,
      );
    }
    assert.equal((await t.store.getJob(future.id))?.status, 'SCHEDULED');
  });

  it('claims at most the limit and sets owner, attempt, version and a database-clock lease', async () => {
    await t.store.enqueueMany(Array.from({ length: 5 }, (_, i) => ({ kind: 'k', payload: { i } })));
    const first = await t.claim(2);
    assert.equal(first.length, 2);
    for (const claimed of first) {
      assert.equal(claimed.attempt, 1);
      assert.equal(claimed.version, 1);
      assert.match(claimed.payloadJson, /^\{"i": ?\d\}$/);
      const job = await t.store.getJob(claimed.id);
      assert.equal(job?.status, 'RUNNING');
      assert.equal(job?.claimedBy, 'w1');
      assert.ok(job?.startedAt && job.leaseExpiresAt);
      assert.equal(job.leaseExpiresAt.getTime() - job.startedAt.getTime(), LEASE_MS);
    }
    assert.equal((await t.claim(2)).length, 2);
    assert.equal((await t.claim(2)).length, 1);
    assert.equal((await t.claim(2)).length, 0);
  });

  it('claims each group up to its own limit, and only the kinds it names', async () => {
    await t.store.enqueueMany([
      ...Array.from({ length: 4 }, () => ({ kind: 'a' })),
      ...Array.from({ length: 4 }, () => ({ kind: 'b' })),
      ...Array.from({ length: 4 }, () => ({ kind: 'c' })),
    ]);
    const claimed = await t.store.claim({
      workerId: 'w1',
      leaseMs: LEASE_MS,
      groups: [
        { kinds: ['a'], limit: 3 },
        { kinds: ['b', 'x'], limit: 1 },
        { kinds: ['c'], limit: 0 },
        { kinds: [], limit: 9 },
      ],
    });
    const count = (kind: string): number => claimed.filter((j) => j.kind === kind).length;
    assert.deepEqual([count('a'), count('b'), count('c')], [3, 1, 0]);
    const none = await t.store.claim({
      workerId: 'w1',
      leaseMs: LEASE_MS,
      groups: [{ kinds: ['z'], limit: 5 }],
    });
    assert.deepEqual(none, []);
  });

  it('two claimers on separate connections never claim the same job', async () => {
    const other = await openStore(t.db);
    try {
      await t.store.enqueueMany(Array.from({ length: 60 }, () => ({ kind: 'k' })));
      const seen: number[] = [];
      const drain = async (s: Store, worker: string): Promise<void> => {
        for (;;) {
          const jobs = await s.claim({
            workerId: worker,
            leaseMs: LEASE_MS,
            groups: [{ kinds: ['k'], limit: 3 }],
          });
          if (jobs.length === 0) return;
          seen.push(...jobs.map((j) => j.id));
        }
      };
      await Promise.all([drain(t.store, 'a'), drain(other, 'b'), drain(t.store, 'c'), drain(other, 'd')]);
      assert.equal(seen.length, 60);
      assert.equal(new Set(seen).size, 60);
    } finally {
      await other.close();
    }
  });
});

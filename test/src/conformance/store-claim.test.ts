import { it } from 'node:test';
import assert from 'node:assert/strict';
import { overlaps, rawQuery, runStoreThreads } from '../helpers/index.js';
import { LEASE_MS, describeStore, later } from './store-fixture.js';

describeStore('claims', (t) => {
  it('a plain INSERT of kind and payload makes a runnable PENDING job', async () => {
    const dbBefore = (await t.store.now()).getTime();
    await rawQuery(t.db, `INSERT INTO nudge_jobs (kind, payload) VALUES ('echo', '{"n": 1}')`);
    const dbAfter = (await t.store.now()).getTime();
    const [row] = await rawQuery<{ id: number }>(t.db, 'SELECT id FROM nudge_jobs');
    const job = await t.store.getJob(Number(row?.id));
    assert.ok(job);
    assert.equal(job.status, 'PENDING');
    assert.deepEqual(job.payload, { n: 1 });
    assert.equal(job.attempts, 0);
    assert.equal(job.maxAttempts, 5);
    assert.equal(job.version, 0);
    assert.equal(job.priority, 0);
    // The database's clock read before and after the INSERT brackets the one it used.
    const runAt = job.runAt.getTime();
    assert.ok(runAt >= dbBefore - 1 && runAt <= dbAfter + 1, 'run_at defaults to the database clock');
    const [claimed] = await t.claim(10);
    const claimedBy = (await t.store.now()).getTime();
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
    assert.ok(
      waitMs !== undefined && waitMs >= 0 && waitMs <= claimedBy - runAt + 1,
      `waited from run_at to the claim (${waitMs} ms)`,
    );
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

  it('two claimers on separate connections never claim the same job at one version', async () => {
    // Four threads, each with its own connection, claim side by side: SQLite calls block their
    // thread, so only threads (or processes) make them contend. Each job is claimed twice: its
    // first attempt fails with no delay (back to PENDING, for any claimer), its second completes.
    const jobs = await t.store.enqueueMany(Array.from({ length: 150 }, () => ({ kind: 'k' })));
    const workers = ['a', 'b', 'c', 'd'];
    const results = await runStoreThreads(
      t.db,
      workers.map((workerId) => ({ type: 'drain', workerId, kinds: ['k'], limit: 3 })),
    );
    const calls = results.map((result) => (result.type === 'drain' ? result.calls : []));
    const claims = calls.flat().flatMap((call) => call.jobs.map(({ id, version }) => `${id}@${version}`));
    const twice = claims.filter((claim, i) => claims.indexOf(claim) !== i);
    assert.deepEqual(twice, [], 'no job is claimed twice at one version');
    assert.deepEqual(
      claims.sort(),
      jobs.flatMap((job) => [`${job.id}@1`, `${job.id}@2`]).sort(),
      'every job is claimed once per attempt',
    );
    assert.deepEqual(await t.store.countByStatus(), {
      WAITING: 0,
      SCHEDULED: 0,
      PENDING: 0,
      RUNNING: 0,
      SUCCEEDED: jobs.length,
      FAILED: 0,
      CANCELLED: 0,
    });
    const busy = calls.filter((own) => own.some((call) => call.jobs.length > 0)).length;
    assert.ok(busy >= 2, `at least two threads claimed jobs (${busy} did)`);
    const contended = calls.some((own, i) =>
      calls.slice(i + 1).some((other) => own.some((a) => other.some((b) => overlaps(a, b)))),
    );
    assert.ok(contended, 'claims of different threads overlapped in time');
  });
});

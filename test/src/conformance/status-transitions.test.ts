// Every status change the stores make is one the transition table in @nudge/core allows, and the
// table allows nothing the stores never do. A trigger records each row's status change while every
// store write runs; the recorded changes must match the table exactly.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { INITIAL_STATUSES, JOB_TRANSITIONS, canTransition, type JobStatus } from '@nudge/core';
import { rawQuery, type TestDatabase } from '../helpers/index.js';
import { describeStore, later, leaseOf } from './store-fixture.js';

async function recordTransitions(db: TestDatabase): Promise<void> {
  await rawQuery(db, 'CREATE TABLE test_transitions (from_status TEXT, to_status TEXT NOT NULL)');
  if (db.dialect === 'postgres') {
    await rawQuery(
      db,
      `CREATE FUNCTION test_record_transition() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         INSERT INTO test_transitions VALUES (CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE OLD.status END, NEW.status);
         RETURN NULL;
       END $$`,
    );
    await rawQuery(
      db,
      `CREATE TRIGGER test_record_transition AFTER INSERT OR UPDATE OF status ON nudge_jobs
       FOR EACH ROW EXECUTE FUNCTION test_record_transition()`,
    );
    return;
  }
  await rawQuery(
    db,
    `CREATE TRIGGER test_record_insert AFTER INSERT ON nudge_jobs
     BEGIN INSERT INTO test_transitions VALUES (NULL, NEW.status); END`,
  );
  await rawQuery(
    db,
    `CREATE TRIGGER test_record_update AFTER UPDATE OF status ON nudge_jobs
     BEGIN INSERT INTO test_transitions VALUES (OLD.status, NEW.status); END`,
  );
}

describeStore('status transitions', (t) => {
  it('every store write moves a job only as JOB_TRANSITIONS allows, and every allowed move is made', async () => {
    await recordTransitions(t.db);
    const { store } = t;
    const now = await store.now();
    const claimOne = async () => {
      const [job] = await t.claim(1, { now: later(await store.now(), 5000) });
      assert.ok(job, 'a job to claim');
      return leaseOf(job);
    };
    // Inserts: PENDING, SCHEDULED, and RUNNING (claimed by its producer).
    await store.enqueueMany([{ kind: 'k' }, { kind: 'k', runAt: later(now, 1000) }]);
    await store.enqueueAndClaim({ kind: 'a' }, { workerId: 'w1', leaseMs: 10_000, kinds: ['a'] });
    // Dedupe windows: a throttled job found in its window, a debounced job replaced while it waits
    // (it stays SCHEDULED); both again as one batch.
    const throttle = { key: 't', windowMs: 3_600_000 };
    const debounce = { key: 'd', delayMs: 3_600_000 };
    await store.enqueue({ kind: 'dedupe', throttle });
    await store.enqueue({ kind: 'dedupe', debounce });
    await store.enqueueMany([
      { kind: 'dedupe', throttle },
      { kind: 'dedupe', debounce, payload: { n: 2 } },
    ]);
    // SCHEDULED → PENDING, PENDING → RUNNING → SUCCEEDED.
    assert.equal((await store.promoteScheduled({ now: later(now, 2000) })).promoted, 1);
    await store.complete([{ ...(await claimOne()), resultJson: null }]);
    // RUNNING → SCHEDULED, → PENDING, → FAILED through fail; RUNNING → PENDING through release.
    await store.fail([{ ...(await claimOne()), error: 'later', retryDelayMs: 60_000 }]);
    await store.enqueueMany([{ kind: 'k' }, { kind: 'k', maxAttempts: 1 }, { kind: 'k' }]);
    await store.fail([{ ...(await claimOne()), error: 'now', retryDelayMs: 0 }]);
    await store.fail([{ ...(await claimOne()), error: 'permanent', retryDelayMs: 0, permanent: true }]);
    await store.release([await claimOne()]);
    // The sweep: RUNNING → SCHEDULED (backoff), → PENDING (no delay), → FAILED (attempts used up).
    await store.enqueueMany([{ kind: 'b' }, { kind: 'c' }, { kind: 'done', maxAttempts: 1 }]);
    await t.claim(10, { kinds: ['b', 'c', 'done'] });
    const expired = later(now, 3_600_000);
    await store.sweepExpired({ retryDelayMs: ({ kind }) => (kind === 'b' ? 60_000 : 0), now: expired });
    // PENDING → FAILED: no live instance handles the kind.
    await store.enqueue({ kind: 'orphan' });
    await store.failUnhandledKinds({ graceMs: 0, instanceTtlMs: 1, now: later(now, 60_000) });
    // Cancel from SCHEDULED, PENDING and RUNNING; retry from FAILED and CANCELLED.
    const scheduled = await store.enqueue({ kind: 'k', runAt: later(now, 86_400_000) });
    const pending = await store.enqueue({ kind: 'again' });
    await store.cancelJob(scheduled.id);
    await store.cancelJob(pending.id);
    const running = await store.enqueue({ kind: 'alive' });
    await t.claim(1, { kinds: ['alive'] });
    await store.cancelJob(running.id);
    // Dependencies: new → WAITING, WAITING → PENDING | SCHEDULED when the dependency succeeds,
    // WAITING → CANCELLED when it fails, and new → CANCELLED for a dependency already failed.
    const dependency = await store.enqueue({ kind: 'dep' });
    const waiting = await store.enqueueMany([
      { kind: 'k', dependsOn: [dependency.id] },
      { kind: 'k', dependsOn: [dependency.id], runAt: later(now, 86_400_000) },
    ]);
    assert.deepEqual(
      waiting.map((job) => job.status),
      ['WAITING', 'WAITING'],
    );
    const [dep] = await t.claim(1, { kinds: ['dep'] });
    assert.ok(dep);
    await store.complete([{ ...leaseOf(dep), resultJson: null }]);
    const doomed = await store.enqueue({ kind: 'dep' });
    const cancelledByDependency = await store.enqueue({ kind: 'k', dependsOn: [doomed.id] });
    await store.cancelJob(doomed.id);
    assert.equal((await store.getJob(cancelledByDependency.id))?.status, 'CANCELLED');
    await store.enqueue({ kind: 'k', dependsOn: [doomed.id] });
    const [failed] = await store.listJobs({ status: 'FAILED', limit: 1 });
    assert.ok(failed);
    await store.retryJob(failed.id);
    await store.retryJob(pending.id);
    // A retried job whose dependency has not finished waits for it: FAILED | CANCELLED → WAITING.
    const upstream = await store.enqueue({ kind: 'up' });
    const [cancelsAfter, runsAfter] = await store.enqueueMany([
      { kind: 'down', dependsOn: [upstream.id] },
      { kind: 'down', dependsOn: [upstream.id], onDependencyFailure: 'run' },
    ]);
    assert.ok(cancelsAfter && runsAfter);
    await store.cancelJob(upstream.id);
    const [down] = await t.claim(1, { kinds: ['down'] });
    assert.equal(down?.id, runsAfter.id);
    await store.fail([{ ...leaseOf(down), error: 'permanent', retryDelayMs: 0, permanent: true }]);
    await store.retryJob(upstream.id);
    assert.equal((await store.retryJob(cancelsAfter.id)).outcome, 'changed');
    assert.equal((await store.retryJob(runsAfter.id)).outcome, 'changed');
    assert.deepEqual(
      [(await store.getJob(cancelsAfter.id))?.status, (await store.getJob(runsAfter.id))?.status],
      ['WAITING', 'WAITING'],
    );

    // Durable steps: a sleep (RUNNING → SCHEDULED) and a signal wait (RUNNING → WAITING) end
    // attempts uncharged; the signal makes the waiting job PENDING (WAITING → PENDING).
    await store.enqueueMany([{ kind: 'durable' }, { kind: 'durable' }]);
    const asleep = await t.claim(1, { kinds: ['durable'] });
    const [sleeper] = asleep;
    assert.ok(sleeper);
    const sleep = { type: 'sleep', delayMs: 60_000 } as const;
    assert.equal(
      (await store.suspend({ ...leaseOf(sleeper), name: 'nap', attempt: 1, wait: sleep }))?.status,
      'SCHEDULED',
    );
    const [waiter] = await t.claim(1, { kinds: ['durable'] });
    assert.ok(waiter);
    const wait = { type: 'signal', timeoutMs: 60_000 } as const;
    assert.equal(
      (await store.suspend({ ...leaseOf(waiter), name: 'go', attempt: 1, wait }))?.status,
      'WAITING',
    );
    await store.sendSignal({ jobId: waiter.id, name: 'go' });

    const recorded = await rawQuery<{ from_status: JobStatus | null; to_status: JobStatus }>(
      t.db,
      'SELECT from_status, to_status FROM test_transitions',
    );
    const seen = new Set<string>();
    for (const { from_status: from, to_status: to } of recorded) {
      if (from === null) {
        assert.ok(INITIAL_STATUSES.includes(to), `a row was inserted as ${to}`);
        seen.add(`new → ${to}`);
      } else if (from !== to) {
        assert.ok(canTransition(from, to), `a store moved a job from ${from} to ${to}`);
        seen.add(`${from} → ${to}`);
      }
    }
    const allowed = [
      ...INITIAL_STATUSES.map((to) => `new → ${to}`),
      ...Object.entries(JOB_TRANSITIONS).flatMap(([from, tos]) => tos.map((to) => `${from} → ${to}`)),
    ];
    assert.deepEqual(
      [...seen].sort(),
      allowed.sort(),
      'every allowed transition is made by some store write',
    );
  });
});

// The store's side of durable steps, on both dialects: step writes and suspends are fenced by the
// attempt's lease, a suspend is uncharged and keeps a recorded wake-up time, a claim ships the
// steps and the first signal of each name, and a signal wait ends exactly once, by its signal or
// by its deadline, however the two race.
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ClaimedJob, ClaimedSteps, Store } from '@nudge/store';
import {
  createMigratedDatabase,
  DIALECTS,
  openStore,
  rawQuery,
  type TestDatabase,
} from '../helpers/index.js';

for (const dialect of DIALECTS) {
  describe(`store: durable steps: ${dialect}`, () => {
    let db: TestDatabase;
    let store: Store;
    beforeEach(async () => {
      db = await createMigratedDatabase(dialect);
      store = await openStore(db);
    });
    afterEach(async () => {
      await store.close();
      await db.drop();
    });

    async function claimOne(kind = 'k', now?: Date): Promise<ClaimedJob> {
      const [job] = await store.claim({
        workerId: 'w',
        leaseMs: 60_000,
        groups: [{ kinds: [kind], limit: 1 }],
        ...(now === undefined ? {} : { now }),
      });
      assert.ok(job, 'a job was claimed');
      return job;
    }

    const stepsOf = (job: ClaimedJob): ClaimedSteps | undefined =>
      job.stepsJson === undefined ? undefined : (JSON.parse(job.stepsJson) as ClaimedSteps);

    it('a step write of a lost attempt writes nothing, and says so', async () => {
      const { id } = await store.enqueue({ kind: 'k' });
      const first = await claimOne();
      // The lease is lost: the job is released (as on shutdown) and claimed again.
      assert.equal((await store.release([first])).length, 1);
      const second = await claimOne();
      const step = {
        name: 'a',
        type: 'step',
        status: 'SUCCEEDED',
        attempt: 1,
        resultJson: '1',
        durationMs: 5,
      } as const;
      assert.equal(await store.recordStep({ id, version: first.version, ...step }), false);
      assert.equal(
        await store.suspend({
          id,
          version: first.version,
          name: 'nap',
          attempt: 1,
          wait: { type: 'sleep', delayMs: 1000 },
        }),
        undefined,
      );
      assert.deepEqual((await store.jobSteps(id)).steps, []);
      assert.equal((await store.getJob(id))?.status, 'RUNNING');
      assert.equal(
        await store.recordStep({ id, version: second.version, ...step, attempt: second.attempt }),
        true,
      );
      const { steps } = await store.jobSteps(id);
      assert.deepEqual(
        steps.map((s) => [s.name, s.status, s.result]),
        [['a', 'SUCCEEDED', 1]],
      );
    });

    it('a failed step is replaced by its success, keeping its place', async () => {
      const { id } = await store.enqueue({ kind: 'k' });
      const job = await claimOne();
      const lease = { id, version: job.version, attempt: 1, durationMs: 1 };
      assert.ok(
        await store.recordStep({ ...lease, name: 'a', type: 'step', status: 'SUCCEEDED', resultJson: '"A"' }),
      );
      assert.ok(
        await store.recordStep({ ...lease, name: 'b', type: 'step', status: 'FAILED', error: 'boom' }),
      );
      assert.ok(
        await store.recordStep({
          ...lease,
          name: 'b',
          type: 'step',
          status: 'SUCCEEDED',
          resultJson: '{"x":[1]}',
        }),
      );
      const { steps } = await store.jobSteps(id);
      assert.deepEqual(
        steps.map((s) => [s.name, s.status, s.result, s.error]),
        [
          ['a', 'SUCCEEDED', 'A', null],
          ['b', 'SUCCEEDED', { x: [1] }, null],
        ],
      );
    });

    it('a sleep is uncharged, bumps the version, and a second suspend keeps the first wake-up time', async () => {
      const { id } = await store.enqueue({ kind: 'k' });
      const job = await claimOne();
      const slept = await store.suspend({
        id,
        version: job.version,
        name: 'nap',
        attempt: 1,
        wait: { type: 'sleep', delayMs: 60_000 },
        progressJson: '50',
      });
      assert.deepEqual(slept, { id, version: job.version, status: 'SCHEDULED' });
      const asleep = await store.getJob(id);
      assert.equal(asleep?.attempts, 0);
      assert.equal(asleep?.version, job.version + 1);
      assert.equal(asleep?.progress, 50);
      const wakeAt = (await store.jobSteps(id)).steps[0]?.wakeAt;
      assert.ok(wakeAt && Math.abs(wakeAt.getTime() - (asleep?.runAt.getTime() ?? 0)) < 2);
      // Promoted early by hand (say, a retry after a cancel): the sleep is not slept anew.
      const later = new Date(wakeAt.getTime() + 1000);
      await store.promoteScheduled({ now: later });
      const again = await claimOne('k', later);
      const shipped = stepsOf(again);
      assert.deepEqual(
        shipped?.steps.map(([name, type, status]) => [name, type, status]),
        [['nap', 'sleep', 'SLEEPING']],
      );
      const out = await store.suspend(
        { id, version: again.version, name: 'nap', attempt: 1, wait: { type: 'sleep', delayMs: 999_999 } },
        later,
      );
      assert.equal(out?.status, 'PENDING', 'the recorded wake-up time had passed');
      assert.equal((await store.jobSteps(id)).steps[0]?.wakeAt?.getTime(), wakeAt.getTime());
    });

    it('a claim ships the steps in order, the remaining time of waits, and the first signal of each name', async () => {
      const { id } = await store.enqueue({ kind: 'k' });
      await store.sendSignal({ jobId: id, name: 'go', payloadJson: '{"n":1}' });
      await store.sendSignal({ jobId: id, name: 'go', payloadJson: '{"n":2}' });
      await store.sendSignal({ jobId: id, name: 'other', payloadJson: null });
      const job = await claimOne();
      assert.deepEqual(stepsOf(job), {
        steps: [],
        signals: [
          ['go', { n: 1 }],
          ['other', null],
        ],
      });
      assert.ok(
        await store.recordStep({
          id,
          version: job.version,
          name: 'first',
          type: 'step',
          status: 'SUCCEEDED',
          attempt: 1,
          resultJson: 'null',
          durationMs: 0,
        }),
      );
      const waiting = await store.suspend({
        id,
        version: job.version,
        name: 'approve',
        attempt: 1,
        wait: { type: 'signal', timeoutMs: 60_000 },
      });
      assert.equal(waiting?.status, 'WAITING');
      const job2 = await store.getJob(id);
      assert.equal(job2?.attempts, 0);
      await store.sendSignal({ jobId: id, name: 'approve', payloadJson: '"yes"' });
      const again = await claimOne();
      const shipped = stepsOf(again);
      // In no particular order: the thread finds a step by its name.
      assert.deepEqual(
        shipped?.steps.map(([name, type, status, result]) => [name, type, status, result]).sort(),
        [
          ['approve', 'signal', 'WAITING', null],
          ['first', 'step', 'SUCCEEDED', null],
        ],
      );
      const remaining = shipped?.steps.find(([name]) => name === 'approve')?.[5];
      assert.ok(
        typeof remaining === 'number' && remaining > 50_000 && remaining <= 60_000,
        `remaining ${remaining}`,
      );
      assert.deepEqual(
        shipped?.signals.find(([name]) => name === 'approve'),
        ['approve', 'yes'],
      );
    });

    it('a wait whose signal came first leaves the job PENDING; a wait without a deadline waits until its signal', async () => {
      const a = await store.enqueue({ kind: 'k' });
      await store.sendSignal({ jobId: a.id, name: 's', payloadJson: '1' });
      const ja = await claimOne();
      assert.equal(
        (
          await store.suspend({
            id: a.id,
            version: ja.version,
            name: 's',
            attempt: 1,
            wait: { type: 'signal' },
          })
        )?.status,
        'PENDING',
      );
      await store.release([{ id: a.id, version: (await claimOne()).version }]);
      const b = await store.enqueue({ kind: 'b' });
      const jb = await claimOne('b');
      assert.equal(
        (
          await store.suspend({
            id: b.id,
            version: jb.version,
            name: 's',
            attempt: 1,
            wait: { type: 'signal' },
          })
        )?.status,
        'WAITING',
      );
      const farFuture = new Date(Date.UTC(9000, 0, 1));
      const promoted = await store.promoteScheduled({ now: farFuture });
      assert.equal(promoted.timedOut ?? 0, 0, 'no deadline: never timed out');
      assert.equal((await store.getJob(b.id))?.status, 'WAITING');
      await store.sendSignal({ jobId: b.id, name: 's', payloadJson: '2' });
      assert.equal((await store.getJob(b.id))?.status, 'PENDING');
    });

    it('at the deadline the promotion ends the wait once: TIMED_OUT, PENDING, and a later signal changes neither', async () => {
      const { id } = await store.enqueue({ kind: 'k' });
      const job = await claimOne();
      await store.suspend({
        id,
        version: job.version,
        name: 's',
        attempt: 1,
        wait: { type: 'signal', timeoutMs: 1000 },
      });
      const before = await store.promoteScheduled();
      assert.equal(before.timedOut ?? 0, 0);
      assert.ok(
        before.nextDueInMs !== null && before.nextDueInMs <= 1000,
        'the deadline is the next due time',
      );
      const later = new Date(Date.now() + 5000);
      const after = await store.promoteScheduled({ now: later });
      assert.equal(after.timedOut, 1);
      assert.equal((await store.getJob(id))?.status, 'PENDING');
      await store.sendSignal({ jobId: id, name: 's', payloadJson: '"late"' });
      const again = await claimOne('k', later);
      assert.equal(stepsOf(again)?.steps[0]?.[2], 'TIMED_OUT');
    });

    it('signals to unknown and finished jobs are refused, and a plain SQL insert releases a waiting job', async () => {
      await assert.rejects(store.sendSignal({ jobId: 999_999, name: 's' }), { code: 'JOB_NOT_FOUND' });
      const done = await store.enqueue({ kind: 'k' });
      const job = await claimOne();
      await store.complete([{ id: done.id, version: job.version, resultJson: null }]);
      await assert.rejects(store.sendSignal({ jobId: done.id, name: 's' }), { code: 'JOB_STATE_CONFLICT' });
      const waiter = await store.enqueue({ kind: 'k' });
      const w = await claimOne();
      await store.suspend({
        id: waiter.id,
        version: w.version,
        name: 'sql',
        attempt: 1,
        wait: { type: 'signal' },
      });
      await rawQuery(
        db,
        `INSERT INTO nudge_job_signals (job_id, name, payload) VALUES (${waiter.id}, 'sql', '{"from":"sql"}')`,
      );
      assert.equal((await store.getJob(waiter.id))?.status, 'PENDING');
    });

    it('deleting a job deletes its steps and signals', async () => {
      const { id } = await store.enqueue({ kind: 'k' });
      await store.sendSignal({ jobId: id, name: 's' });
      const job = await claimOne();
      await store.recordStep({
        id,
        version: job.version,
        name: 'a',
        type: 'step',
        status: 'SUCCEEDED',
        attempt: 1,
        resultJson: '1',
        durationMs: 0,
      });
      await rawQuery(db, `DELETE FROM nudge_jobs WHERE id = ${id}`);
      const [left] = await rawQuery<{ n: number }>(
        db,
        `SELECT (SELECT count(*) FROM nudge_job_steps) + (SELECT count(*) FROM nudge_job_signals) AS n`,
      );
      assert.equal(Number(left?.n), 0);
    });
  });
}

describe('store: durable steps: postgres races', () => {
  let db: TestDatabase;
  let store: Store;
  let other: Store;
  beforeEach(async () => {
    db = await createMigratedDatabase('postgres');
    [store, other] = await Promise.all([openStore(db), openStore(db)]);
  });
  afterEach(async () => {
    await Promise.all([store.close(), other.close()]);
    await db.drop();
  });

  it('a suspend racing a signal never leaves the job WAITING with its signal sent (50 races)', async () => {
    for (let round = 0; round < 50; round += 1) {
      const { id } = await store.enqueue({ kind: `k${round}` });
      const [job] = await store.claim({
        workerId: 'w',
        leaseMs: 60_000,
        groups: [{ kinds: [`k${round}`], limit: 1 }],
      });
      assert.ok(job);
      await Promise.all([
        store.suspend({ id, version: job.version, name: 's', attempt: 1, wait: { type: 'signal' } }),
        other.sendSignal({ jobId: id, name: 's', payloadJson: String(round) }),
      ]);
      assert.equal(
        (await store.getJob(id))?.status,
        'PENDING',
        `round ${round}: the signal released the wait`,
      );
    }
  });

  it('a deadline racing a late signal resolves the wait exactly once (50 races)', async () => {
    for (let round = 0; round < 50; round += 1) {
      const { id } = await store.enqueue({ kind: `k${round}` });
      const [job] = await store.claim({
        workerId: 'w',
        leaseMs: 60_000,
        groups: [{ kinds: [`k${round}`], limit: 1 }],
      });
      assert.ok(job);
      await store.suspend({
        id,
        version: job.version,
        name: 's',
        attempt: 1,
        wait: { type: 'signal', timeoutMs: 0 },
      });
      const [promoted] = await Promise.all([
        store.promoteScheduled(),
        other.sendSignal({ jobId: id, name: 's', payloadJson: String(round) }),
      ]);
      const status = (await store.jobSteps(id)).steps[0]?.status;
      assert.equal((await store.getJob(id))?.status, 'PENDING');
      // Exactly one of the two ended the wait: the deadline marked it, or the signal released it.
      if (status !== 'TIMED_OUT') assert.equal(status, 'WAITING');
      assert.ok((promoted.timedOut ?? 0) === (status === 'TIMED_OUT' ? 1 : 0), `round ${round}`);
    }
  });
});

// `signal(executor, …)` of @nudge/client on every executor type of each dialect, with a real
// engine running a job that waits in ctx.waitForSignal: a signal sent in a producer transaction
// that rolls back never arrives (the job stays WAITING); one that commits releases the job, whose
// wait returns the payload.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { NudgeError, type ErrorCode, type Job } from '@nudge/core';
import {
  describeEngine,
  DIALECTS,
  DURABLE_HANDLERS,
  rawQuery,
  waitForEvent,
  waitUntil,
  type EngineCase,
} from '../helpers/index.js';
import { Rollback, signalExecutors } from './signal-executors.js';

const count = async (t: EngineCase, table: string): Promise<number> =>
  Number((await rawQuery<{ n: number | string }>(t.db, `SELECT count(*) AS n FROM ${table}`))[0]?.n);

async function inStatus(t: EngineCase, id: number, statuses: readonly string[]): Promise<Job> {
  return waitUntil(
    async () => {
      const job = await t.store.getJob(id);
      return job && statuses.includes(job.status) ? job : undefined;
    },
    20_000,
    10,
    `job ${id} to be ${statuses.join(' or ')}`,
  );
}

const refusedWith = (code: ErrorCode) => (error: unknown) => {
  assert.ok(error instanceof NudgeError, String(error));
  assert.equal(error.code, code, error.message);
  return true;
};

for (const dialect of DIALECTS) {
  describeEngine(
    'transactional signals',
    (t) => {
      /** A started engine and a flow job WAITING for the signal `approve`. */
      async function waitingJob(): Promise<number> {
        const engine = await t.engine({ handlers: DURABLE_HANDLERS, threads: 1, asyncConcurrency: 1 });
        const ledger = join(t.scratch.dir, 'ledger');
        const job = await t.store.enqueue({ kind: 'asyncFlow', payload: { ledger, signal: 'approve' } });
        engine.start();
        const waiting = await inStatus(t, job.id, ['WAITING']);
        assert.equal(waiting.waitSignal, 'approve');
        return job.id;
      }

      for (const executor of signalExecutors(dialect)) {
        if (executor.transactional) {
          test(`${executor.name}: a signal sent in a rolled-back transaction never arrives; a committed one releases the job`, async () => {
            const id = await waitingJob();
            await assert.rejects(
              executor.send(t.db, { jobId: id, name: 'approve', payload: { by: 'nobody' } }, true),
              Rollback,
            );
            assert.equal(await count(t, 'nudge_job_signals'), 0, 'no signal');
            assert.equal(await count(t, 'approvals'), 0, "the producer's own row is gone too");
            const still = await t.store.getJob(id);
            assert.equal(still?.status, 'WAITING');
            assert.equal(still?.waitSignal, 'approve');

            const sent = await executor.send(
              t.db,
              { jobId: id, name: 'approve', payload: { by: 'ada' } },
              false,
            );
            assert.equal(sent.created, true);
            assert.equal(await count(t, 'approvals'), 1);
            const done = await inStatus(t, id, ['SUCCEEDED', 'FAILED', 'CANCELLED']);
            assert.equal(done.status, 'SUCCEEDED');
            assert.deepEqual(
              (done.result as { got: unknown }).got,
              { by: 'ada' },
              'the wait returned the payload',
            );
            const { signals } = await t.store.jobSteps(id);
            assert.deepEqual(
              signals.map((s) => [s.id, s.name, s.payload]),
              [[sent.id, 'approve', { by: 'ada' }]],
            );
          });
        }

        test(`${executor.name}: a committed signal releases the waiting job; a repeat of its signalId stores nothing`, async () => {
          const id = await waitingJob();
          const send = { jobId: id, name: 'approve', payload: 7, options: { signalId: 'approval-1' } };
          const first = await executor.send(t.db, send, false);
          const repeat = await executor.send(t.db, { ...send, payload: 8 }, false);
          assert.deepEqual(repeat, { id: first.id, created: false });
          const done = await inStatus(t, id, ['SUCCEEDED', 'FAILED', 'CANCELLED']);
          assert.equal((done.result as { got: unknown }).got, 7);
          assert.equal(await count(t, 'nudge_job_signals'), 1);
        });

        test(`${executor.name}: refuses an unknown or finished job, and a bad input before writing`, async () => {
          await assert.rejects(
            executor.send(t.db, { jobId: 987_654, name: 'approve' }, false),
            refusedWith('JOB_NOT_FOUND'),
          );
          const job = await t.store.enqueue({ kind: 'plain' });
          await t.store.cancelJob(job.id);
          await assert.rejects(
            executor.send(t.db, { jobId: job.id, name: 'approve' }, false),
            refusedWith('JOB_STATE_CONFLICT'),
          );
          await assert.rejects(
            executor.send(t.db, { jobId: job.id, name: '' }, false),
            refusedWith('INVALID_REQUEST'),
          );
          await assert.rejects(
            executor.send(t.db, { jobId: job.id, name: 'a', payload: 'nul \u0000' }, false),
            refusedWith('PAYLOAD_UNSTORABLE'),
          );
          assert.equal(await count(t, 'nudge_job_signals'), 0);
        });
      }

      test('a signal sent before the wait is kept, and the wait returns it at once', async () => {
        const [executor] = signalExecutors(dialect);
        assert.ok(executor);
        const engine = await t.engine({ handlers: DURABLE_HANDLERS, threads: 1, asyncConcurrency: 1 });
        const ledger = join(t.scratch.dir, 'ledger');
        const job = await t.store.enqueue({ kind: 'asyncFlow', payload: { ledger, signal: 'approve' } });
        await executor.send(t.db, { jobId: job.id, name: 'approve', payload: 'early' }, false);
        const claimed = waitForEvent(engine, 'claim:claimed');
        engine.start();
        await claimed;
        const done = await inStatus(t, job.id, ['SUCCEEDED', 'FAILED', 'CANCELLED']);
        assert.equal((done.result as { got: unknown }).got, 'early');
      });
    },
    [dialect],
  );
}

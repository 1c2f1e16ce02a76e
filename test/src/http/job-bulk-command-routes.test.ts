import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS, installPoisonRows } from '@nudge/test-databases';
import { createTestApp, jsonBody, type TestApp } from './test-app.js';

for (const dialect of DIALECTS) {
  describe(`POST /jobs/retry and /jobs/cancel: ${dialect}`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect);
    });
    after(async () => t.close());
    beforeEach(async () => {
      // Each case starts with nothing unfinished.
      await t.store.cancelJobs({});
    });

    const post = async (url: string, payload: unknown) => {
      const response = await t.app.inject({ method: 'POST', url, payload: payload as object });
      return { status: response.statusCode, body: jsonBody(response) };
    };

    it('cancels the jobs of a queue and answers the count; then retries them by kind', async () => {
      await t.store.enqueueMany([
        { kind: 'echo', queue: 'bulk' },
        { kind: 'echo', queue: 'bulk' },
        { kind: 'sendEmail', queue: 'bulk' },
        { kind: 'echo', queue: 'other' },
      ]);
      const cancelled = await post('/jobs/cancel', { queue: 'bulk' });
      assert.deepEqual(cancelled, { status: 200, body: { cancelled: 3, isolated: 0 } });
      assert.deepEqual(await post('/jobs/cancel', { queue: 'bulk' }), {
        status: 200,
        body: { cancelled: 0, isolated: 0 },
      });
      const retried = await post('/jobs/retry', { status: 'CANCELLED', kind: 'echo', queue: 'bulk' });
      assert.deepEqual(retried, { status: 200, body: { retried: 2, isolated: 0 } });
      const pending = await t.store.listJobs({ status: 'PENDING', queue: 'bulk', limit: 10 });
      assert.deepEqual(
        pending.map((job) => [job.kind, job.attempts]),
        [
          ['echo', 0],
          ['echo', 0],
        ],
      );
    });

    it('answers how many jobs the database refused, and changes the others', async () => {
      const jobs = await t.store.enqueueMany([0, 1, 2].map(() => ({ kind: 'echo', queue: 'refusing' })));
      const poison = await installPoisonRows(t.db);
      await poison.poison(jobs[1]!.id);
      assert.deepEqual(await post('/jobs/cancel', { queue: 'refusing' }), {
        status: 200,
        body: { cancelled: 2, isolated: 1 },
      });
      assert.equal((await t.store.getJob(jobs[1]!.id))?.status, 'PENDING');
      await poison.poison(jobs[0]!.id);
      assert.deepEqual(await post('/jobs/retry', { status: 'CANCELLED', queue: 'refusing' }), {
        status: 200,
        body: { retried: 1, isolated: 1 },
      });
    });

    it('takes one status or a list, a limit, and created-time bounds', async () => {
      const now = await t.store.now();
      await t.store.enqueueMany([
        { kind: 'echo', queue: 'q' },
        { kind: 'echo', queue: 'q' },
        { kind: 'echo', queue: 'q', runAt: new Date(now.getTime() + 3_600_000) },
      ]);
      assert.deepEqual((await post('/jobs/cancel', { queue: 'q', status: 'SCHEDULED' })).body, {
        cancelled: 1,
        isolated: 0,
      });
      const future = new Date(now.getTime() + 60_000).toISOString();
      assert.deepEqual((await post('/jobs/cancel', { queue: 'q', createdAfter: future })).body, {
        cancelled: 0,
        isolated: 0,
      });
      assert.deepEqual((await post('/jobs/cancel', { queue: 'q', status: ['PENDING'], limit: 1 })).body, {
        cancelled: 1,
        isolated: 0,
      });
      assert.equal((await t.store.listJobs({ status: 'PENDING', queue: 'q', limit: 10 })).length, 1);
    });

    it('answers 400 INVALID_REQUEST naming what to fix, and changes nothing', async () => {
      await t.store.enqueue({ kind: 'echo', queue: 'kept' });
      const cases: [string, unknown, RegExp][] = [
        ['/jobs/retry', {}, /status/],
        ['/jobs/retry', { status: 'RUNNING' }, /FAILED, CANCELLED/],
        ['/jobs/retry', { status: 'FAILED', limit: 0 }, /limit/],
        ['/jobs/retry', { status: 'FAILED', limit: 2.5 }, /limit/],
        ['/jobs/retry', { status: 'FAILED', finishedAfter: 'yesterday' }, /finishedAfter/],
        [
          '/jobs/retry',
          { status: 'FAILED', finishedAfter: '2030-01-02T00:00:00Z', finishedBefore: '2030-01-01T00:00:00Z' },
          /finishedAfter must be earlier than finishedBefore/,
        ],
        ['/jobs/retry', { status: 'FAILED', colour: 'red' }, /colour/],
        ['/jobs/cancel', { status: 'SUCCEEDED', queue: 'kept' }, /status/],
        ['/jobs/cancel', { status: [], queue: 'kept' }, /status/],
        ['/jobs/cancel', { queue: 'no spaces' }, /queue/],
        ['/jobs/cancel', { queue: 'kept', limit: -1 }, /limit/],
        ['/jobs/cancel', { queue: 'kept', createdBefore: 'soon' }, /createdBefore/],
      ];
      for (const [url, payload, message] of cases) {
        const label = `${url} ${JSON.stringify(payload)}`;
        const answer = await post(url, payload);
        assert.equal(answer.status, 400, label);
        assert.equal(answer.body.code, 'INVALID_REQUEST', label);
        assert.match(String(answer.body.message), message, label);
      }
      assert.equal((await t.store.listJobs({ status: 'PENDING', queue: 'kept', limit: 10 })).length, 1);
    });
  });
}

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '@nudge/test-databases';
import { addSignal, addSteps, signalCount, stepNames } from '../helpers/step-rows.js';
import { createTestApp, jsonBody, type TestApp } from './test-app.js';

const STEPS = ['fetch', 'charge', 'archive'];

for (const dialect of DIALECTS) {
  describe(`POST /jobs/:id/retry and /jobs/retry with steps: ${dialect}`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect);
    });
    after(async () => t.close());

    const post = async (url: string, payload?: unknown, headers?: Record<string, string>) => {
      const response = await t.app.inject({
        method: 'POST',
        url,
        ...(payload === undefined ? {} : { payload: payload as object }),
        ...(headers ? { headers } : {}),
      });
      return { status: response.statusCode, body: jsonBody(response) };
    };

    /** A cancelled job of `queue` that recorded {@link STEPS} and got a signal. */
    const cancelledWithSteps = async (queue = 'steps'): Promise<number> => {
      const job = await t.store.enqueue({ kind: 'echo', queue });
      await addSignal(t.db, job.id, 'approve');
      await addSteps(t.db, job.id, STEPS);
      await t.store.cancelJob(job.id);
      return job.id;
    };

    it('without a body (or with {} or null) keeps every step', async () => {
      for (const payload of [undefined, {}, 'null']) {
        const id = await cancelledWithSteps();
        const headers = payload === 'null' ? { 'content-type': 'application/json' } : undefined;
        const retried = await post(`/jobs/${id}/retry`, payload, headers);
        assert.equal(retried.status, 200, JSON.stringify(retried.body));
        assert.equal(retried.body.status, 'PENDING');
        assert.deepEqual(await stepNames(t.db, id), STEPS);
      }
    });

    it('fromStep clears that step and the later ones; resetSteps clears all; signals stay', async () => {
      const from = await cancelledWithSteps();
      assert.equal((await post(`/jobs/${from}/retry`, { fromStep: 'charge' })).status, 200);
      assert.deepEqual(await stepNames(t.db, from), ['fetch']);
      const reset = await cancelledWithSteps();
      const retried = await post(`/jobs/${reset}/retry`, { resetSteps: true });
      assert.equal(retried.status, 200);
      assert.equal(retried.body.status, 'PENDING');
      assert.deepEqual(await stepNames(t.db, reset), []);
      assert.equal(await signalCount(t.db, reset), 1);
    });

    it('refuses a bad body with 400 and changes nothing', async () => {
      const id = await cancelledWithSteps();
      const refusals: [unknown, string, RegExp][] = [
        [
          { fromStep: 'charge', resetSteps: true },
          'INVALID_REQUEST',
          /give fromStep or resetSteps, not both/,
        ],
        [{ fromStep: 'refund' }, 'STEP_NOT_FOUND', new RegExp(`job ${id} has no step named "refund"`)],
        [{ fromStep: '' }, 'INVALID_REQUEST', /^\/fromStep must be a step name of 1 to 200 characters/],
        [{ fromStep: 'x'.repeat(201) }, 'INVALID_REQUEST', /^\/fromStep must be a step name/],
        [{ resetSteps: 'yes' }, 'INVALID_REQUEST', /^\/resetSteps must be true or false/],
        [{ from: 'charge' }, 'INVALID_REQUEST', /^\/from is not allowed \(allowed: fromStep, resetSteps\)/],
        [[1], 'INVALID_REQUEST', /must be a JSON object/],
      ];
      for (const [payload, code, message] of refusals) {
        const refused = await post(`/jobs/${id}/retry`, payload);
        assert.equal(refused.status, 400, JSON.stringify(payload));
        assert.equal(refused.body.code, code, JSON.stringify(refused.body));
        assert.match(String(refused.body.message), message);
      }
      assert.equal((await t.store.getJob(id))?.status, 'CANCELLED');
      assert.deepEqual(await stepNames(t.db, id), STEPS);
    });

    it('a conflict answers 409 before the step check, and clears nothing', async () => {
      const job = await t.store.enqueue({ kind: 'echo' });
      await addSteps(t.db, job.id, STEPS);
      for (const payload of [{ resetSteps: true }, { fromStep: 'refund' }]) {
        const refused = await post(`/jobs/${job.id}/retry`, payload);
        assert.equal(refused.status, 409);
        assert.equal(refused.body.code, 'JOB_STATE_CONFLICT');
      }
      assert.deepEqual(await stepNames(t.db, job.id), STEPS);
      assert.equal((await post('/jobs/987654/retry', { resetSteps: true })).status, 404);
    });

    it('the bulk retry takes fromStep and resetSteps; both at once is a 400', async () => {
      const reached = await cancelledWithSteps('bulk-steps');
      const plain = await t.store.enqueue({ kind: 'echo', queue: 'bulk-steps' });
      await addSteps(t.db, plain.id, ['fetch']);
      await t.store.cancelJob(plain.id);
      const both = await post('/jobs/retry', {
        status: 'CANCELLED',
        queue: 'bulk-steps',
        fromStep: 'charge',
        resetSteps: true,
      });
      assert.equal(both.status, 400);
      assert.equal(both.body.code, 'INVALID_REQUEST');
      assert.match(String(both.body.message), /give fromStep or resetSteps, not both/);
      const retried = await post('/jobs/retry', {
        status: 'CANCELLED',
        queue: 'bulk-steps',
        fromStep: 'charge',
      });
      assert.deepEqual(retried, { status: 200, body: { retried: 2, isolated: 0 } });
      assert.deepEqual(await stepNames(t.db, reached), ['fetch']);
      assert.deepEqual(await stepNames(t.db, plain.id), ['fetch'], 'no charge step: every step kept');
      await t.store.cancelJobs({ queue: 'bulk-steps' });
      const reset = await post('/jobs/retry', { status: 'CANCELLED', queue: 'bulk-steps', resetSteps: true });
      assert.deepEqual(reset, { status: 200, body: { retried: 2, isolated: 0 } });
      assert.deepEqual(await stepNames(t.db, reached), []);
      assert.deepEqual(await stepNames(t.db, plain.id), []);
      assert.equal(await signalCount(t.db, reached), 1);
    });
  });
}

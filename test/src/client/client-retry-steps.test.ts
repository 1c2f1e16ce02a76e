// The client's retry options against the routes on a real store of each dialect.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createClient, type NudgeClient } from '@nudge/client';
import { DIALECTS } from '@nudge/test-databases';
import { addSteps, stepNames } from '../helpers/step-rows.js';
import { createTestApp, type TestApp } from '../http/test-app.js';

const STEPS = ['fetch', 'charge', 'archive'];

for (const dialect of DIALECTS) {
  describe(`client retry and retryAll with steps: ${dialect}`, () => {
    let t: TestApp;
    let client: NudgeClient;
    before(async () => {
      t = await createTestApp(dialect);
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const address = t.app.server.address();
      assert.ok(address && typeof address === 'object');
      client = createClient({ baseUrl: `http://127.0.0.1:${address.port}` });
    });
    after(async () => t.close());

    const cancelledWithSteps = async (queue: string): Promise<number> => {
      const job = await t.store.enqueue({ kind: 'echo', queue });
      await addSteps(t.db, job.id, STEPS);
      await t.store.cancelJob(job.id);
      return job.id;
    };

    it('retry keeps the steps, or clears them from a step or all; STEP_NOT_FOUND is a NudgeApiError', async () => {
      const kept = await cancelledWithSteps('one');
      assert.equal((await client.retry(kept)).status, 'PENDING');
      assert.deepEqual(await stepNames(t.db, kept), STEPS);
      const from = await cancelledWithSteps('one');
      await assert.rejects(client.retry(from, { fromStep: 'refund' }), {
        status: 400,
        code: 'STEP_NOT_FOUND',
      });
      await assert.rejects(client.retry(from, { fromStep: 'charge', resetSteps: true }), {
        status: 400,
        code: 'INVALID_REQUEST',
      });
      assert.equal((await client.retry(from, { fromStep: 'archive' })).status, 'PENDING');
      assert.deepEqual(await stepNames(t.db, from), ['fetch', 'charge']);
      const reset = await cancelledWithSteps('one');
      await client.retry(reset, { resetSteps: true });
      assert.deepEqual(await stepNames(t.db, reset), []);
    });

    it('retryAll passes fromStep and resetSteps', async () => {
      const a = await cancelledWithSteps('all');
      const b = await cancelledWithSteps('all');
      assert.equal(await client.retryAll({ status: 'CANCELLED', queue: 'all', fromStep: 'charge' }), 2);
      assert.deepEqual(await stepNames(t.db, a), ['fetch']);
      await t.store.cancelJobs({ queue: 'all' });
      assert.equal(await client.retryAll({ status: 'CANCELLED', queue: 'all', resetSteps: true }), 2);
      assert.deepEqual(await stepNames(t.db, b), []);
    });
  });
}

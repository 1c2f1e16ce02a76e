import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '@nudge/test-databases';
import { createTestApp, jsonBody, type TestApp } from './test-app.js';

for (const dialect of DIALECTS) {
  describe(`POST /jobs/:id/cancel and /retry: ${dialect}`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect);
    });
    after(async () => t.close());

    const post = async (url: string) => {
      const response = await t.app.inject({ method: 'POST', url });
      return { status: response.statusCode, body: jsonBody(response) };
    };

    it('cancels a pending job, then refuses to cancel it again with 409 and its status', async () => {
      const job = await t.store.enqueue({ kind: 'echo' });
      const cancelled = await post(`/jobs/${job.id}/cancel`);
      assert.equal(cancelled.status, 200);
      assert.equal(cancelled.body.status, 'CANCELLED');
      const again = await post(`/jobs/${job.id}/cancel`);
      assert.equal(again.status, 409);
      assert.equal(again.body.code, 'JOB_STATE_CONFLICT');
      assert.equal(again.body.status, 'CANCELLED');
      assert.match(String(again.body.message), /cannot be cancelled: it is CANCELLED/);
    });

    it('retries a cancelled job; a pending one answers 409', async () => {
      const job = await t.store.enqueue({ kind: 'echo' });
      const refused = await post(`/jobs/${job.id}/retry`);
      assert.equal(refused.status, 409);
      assert.equal(refused.body.status, 'PENDING');
      assert.match(String(refused.body.message), /only a FAILED or CANCELLED job can be retried/);
      await post(`/jobs/${job.id}/cancel`);
      const retried = await post(`/jobs/${job.id}/retry`);
      assert.equal(retried.status, 200);
      assert.equal(retried.body.status, 'PENDING');
      assert.equal(retried.body.attempts, 0);
    });

    it('refuses with 409 DEPENDENCY_FAILED, naming the dependency, a retry that would be cancelled again', async () => {
      const [head, dependent] = await t.store.enqueueMany([
        { kind: 'echo', runAt: new Date(Date.now() + 3_600_000) },
        { kind: 'echo', dependsOn: [{ index: 0 }] },
      ]);
      assert.ok(head && dependent);
      await post(`/jobs/${head.id}/cancel`);
      const refused = await post(`/jobs/${dependent.id}/retry`);
      assert.equal(refused.status, 409);
      assert.equal(refused.body.code, 'DEPENDENCY_FAILED');
      assert.match(String(refused.body.message), new RegExp(`dependency ${head.id} ended CANCELLED`));
      assert.equal((await post(`/jobs/${head.id}/retry`)).body.status, 'PENDING');
      const waiting = await post(`/jobs/${dependent.id}/retry`);
      assert.equal(waiting.status, 200);
      assert.equal(waiting.body.status, 'WAITING');
      await post(`/jobs/${head.id}/cancel`);
    });

    it('answers 404 for an unknown job and 400 for a malformed id, changing nothing', async () => {
      const before = await t.store.countByStatus();
      assert.equal((await post('/jobs/987654/cancel')).body.code, 'JOB_NOT_FOUND');
      assert.equal((await post('/jobs/987654/retry')).status, 404);
      assert.equal((await post('/jobs/abc/cancel')).body.code, 'INVALID_REQUEST');
      assert.deepEqual(await t.store.countByStatus(), before);
    });
  });
}

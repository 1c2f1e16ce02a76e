// A flow built by one POST /jobs/batch, through the routes: cancelling the head of a 1,000-job
// chain cancels all of it, and one POST /jobs/retry brings it back waiting link by link.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '@nudge/test-databases';
import { createTestApp, jsonBody, type TestApp } from './test-app.js';

const CHAIN = 1000;

for (const dialect of DIALECTS) {
  describe(`a ${CHAIN}-job chain through the routes: ${dialect}`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect);
    });
    after(async () => t.close());

    it('POST /jobs/:id/cancel of the head cancels the chain; POST /jobs/retry of it leaves the rest waiting', async () => {
      const jobs = Array.from({ length: CHAIN }, (_, i) =>
        i === 0 ? { kind: 'echo' } : { kind: 'echo', dependsOn: [{ index: i - 1 }] },
      );
      const created = await t.app.inject({ method: 'POST', url: '/jobs/batch', payload: { jobs } });
      assert.equal(created.statusCode, 201, created.body);
      const ids = (jsonBody(created).jobs as Array<{ id: number }>).map((job) => job.id);
      const cancel = await t.app.inject({ method: 'POST', url: `/jobs/${ids[0]}/cancel` });
      assert.equal(cancel.statusCode, 200, cancel.body);
      assert.equal((await t.store.countByStatus()).CANCELLED, CHAIN);
      const last = jsonBody(await t.app.inject({ method: 'GET', url: `/jobs/${ids.at(-1)}` }));
      assert.equal(last.lastError, `dependency ${ids.at(-2)} ended CANCELLED`);
      const retry = await t.app.inject({
        method: 'POST',
        url: '/jobs/retry',
        payload: { status: 'CANCELLED', kind: 'echo' },
      });
      assert.equal(retry.statusCode, 200, retry.body);
      assert.deepEqual(jsonBody(retry), { retried: CHAIN, isolated: 0 });
      const counts = await t.store.countByStatus();
      assert.deepEqual([counts.PENDING, counts.WAITING], [1, CHAIN - 1]);
      const second = jsonBody(await t.app.inject({ method: 'GET', url: `/jobs/${ids[1]}` }));
      assert.equal(second.status, 'WAITING');
      assert.deepEqual(second.blockedBy, [ids[0]]);
    });
  });
}

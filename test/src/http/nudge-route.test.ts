import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '@nudge/test-databases';
import { createTestApp, jsonBody, type TestApp } from './test-app.js';

for (const dialect of DIALECTS) {
  describe(`POST /nudge: ${dialect}`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect, { bodyLimitBytes: 1024 });
    });
    after(async () => t.close());

    const requests = [
      { name: 'no body and no content type (curl -X POST)', headers: {}, payload: undefined },
      { name: 'an empty JSON body', headers: { 'content-type': 'application/json' }, payload: '' },
      { name: 'a JSON body', headers: { 'content-type': 'application/json' }, payload: '{"reason":"batch"}' },
      { name: 'malformed JSON (ignored)', headers: { 'content-type': 'application/json' }, payload: '{' },
      {
        name: 'an empty form (curl -d "")',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: '',
      },
      { name: 'a text body', headers: { 'content-type': 'text/plain' }, payload: 'go' },
    ];

    for (const request of requests) {
      it(`answers 202 and requests one claim for ${request.name}`, async () => {
        const claims = t.claimRequests();
        const response = await t.app.inject({ method: 'POST', url: '/nudge', ...request });
        assert.equal(response.statusCode, 202, response.body);
        assert.deepEqual(jsonBody(response), { accepted: true });
        assert.equal(t.claimRequests(), claims + 1);
      });
    }

    it('still enforces the body limit', async () => {
      const claims = t.claimRequests();
      const response = await t.app.inject({
        method: 'POST',
        url: '/nudge',
        headers: { 'content-type': 'text/plain' },
        payload: 'x'.repeat(2048),
      });
      assert.equal(response.statusCode, 413);
      assert.equal(jsonBody(response).code, 'BODY_TOO_LARGE');
      assert.equal(t.claimRequests(), claims);
    });

    it('writes no job and changes none, whatever the body', async () => {
      await t.store.enqueue({ kind: 'echo', payload: { before: true } });
      const snapshot = async () => ({
        counts: await t.store.countByStatus(),
        jobs: await t.store.listJobs({ limit: 100 }),
      });
      const before = await snapshot();
      for (const request of requests) {
        const response = await t.app.inject({ method: 'POST', url: '/nudge', ...request });
        assert.equal(response.statusCode, 202, response.body);
      }
      assert.equal(t.enqueues(), 0, 'the route never calls enqueue');
      assert.deepEqual(await snapshot(), before);
    });
  });
}

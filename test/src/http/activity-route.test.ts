import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '@nudge/test-databases';
import { createTestApp, jsonBody, type TestApp } from './test-app.js';

for (const dialect of DIALECTS) {
  describe(`GET /activity: ${dialect}`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect);
    });
    after(async () => t.close());

    it('counts jobs that finished in the window, per bucket', async () => {
      await t.store.enqueueMany([{ kind: 'echo' }, { kind: 'echo' }]);
      const claimed = await t.store.claim({
        workerId: 'w',
        leaseMs: 10_000,
        groups: [{ kinds: ['echo'], limit: 2 }],
      });
      await t.store.complete(claimed.map(({ id, version }) => ({ id, version, resultJson: null })));
      const response = await t.app.inject({ method: 'GET', url: '/activity?windowMs=600000&bucketMs=60000' });
      assert.equal(response.statusCode, 200, response.body);
      const body = jsonBody(response) as {
        buckets: Array<{ succeeded: number; failed: number }>;
        bucketMs: number;
      };
      assert.equal(body.bucketMs, 60_000);
      assert.equal(
        body.buckets.reduce((sum, bucket) => sum + bucket.succeeded, 0),
        2,
      );
    });

    it('refuses more than 1,440 buckets or a window over 7 days', async () => {
      const tooMany = await t.app.inject({ method: 'GET', url: '/activity?windowMs=3600000&bucketMs=1000' });
      assert.equal(tooMany.statusCode, 400);
      assert.match(String(jsonBody(tooMany).message), /at most 1440 buckets/);
      const tooLong = await t.app.inject({ method: 'GET', url: '/activity?windowMs=999999999' });
      assert.equal(jsonBody(tooLong).code, 'INVALID_REQUEST');
    });
  });
}

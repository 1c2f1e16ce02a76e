import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '@nudge/test-databases';
import { createTestApp, jsonBody, type TestApp } from './test-app.js';

for (const dialect of DIALECTS) {
  describe(`queue routes: ${dialect}`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect);
    });
    after(async () => t.close());

    const request = async (method: 'GET' | 'POST', url: string) => {
      const response = await t.app.inject({ method, url });
      return { status: response.statusCode, body: jsonBody(response) };
    };

    it('pauses and resumes a queue, stored in the database, and lists queues with their counts', async () => {
      const created = await t.app.inject({
        method: 'POST',
        url: '/jobs',
        payload: { kind: 'echo', queue: 'emails' },
      });
      assert.equal(jsonBody(created).queue, 'emails');
      const paused = await request('POST', '/queues/emails/pause');
      assert.equal(paused.status, 200);
      assert.equal(paused.body.paused, true);
      assert.equal(paused.body.pending, 1);
      assert.equal((await t.store.listQueues())[0]?.paused, true, 'stored, for every instance');
      const listed = await request('GET', '/queues');
      assert.deepEqual(
        (listed.body.queues as Array<{ name: string; paused: boolean }>).map((q) => [q.name, q.paused]),
        [['emails', true]],
      );
      const claimsBefore = t.claimRequests();
      const resumed = await request('POST', '/queues/emails/resume');
      assert.equal(resumed.body.paused, false);
      assert.equal(t.claimRequests(), claimsBefore + 1, 'a resume asks for a claim');
      const jobs = await request('GET', '/jobs?queue=emails');
      assert.equal((jobs.body.jobs as unknown[]).length, 1);
    });

    it('refuses a queue name that is not one, in the path, a job or a filter', async () => {
      const badPath = await request('POST', '/queues/a%20b/pause');
      assert.equal(badPath.status, 400);
      assert.match(String(badPath.body.message), /params\/name must be a queue name/);
      const badJob = await t.app.inject({
        method: 'POST',
        url: '/jobs',
        payload: { kind: 'echo', queue: '' },
      });
      assert.equal(jsonBody(badJob).code, 'INVALID_REQUEST');
      assert.equal((await request('GET', '/jobs?queue=*')).status, 400);
    });
  });
}

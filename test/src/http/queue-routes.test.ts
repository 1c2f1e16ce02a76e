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

    const patch = async (name: string, payload: unknown) => {
      const response = await t.app.inject({
        method: 'PATCH',
        url: `/queues/${name}`,
        payload: payload as object,
      });
      return { status: response.statusCode, body: jsonBody(response) };
    };

    it('PATCH /queues/:name sets, keeps and removes cluster-wide limits, stored for every instance', async () => {
      const claimsBefore = t.claimRequests();
      const set = await patch('partner', {
        concurrency: 5,
        rateLimit: { limit: 100, intervalMs: 1_000 },
        keyConcurrency: 1,
      });
      assert.equal(set.status, 200);
      assert.deepEqual(
        [set.body.name, set.body.concurrency, set.body.rateLimit, set.body.keyConcurrency],
        ['partner', 5, { limit: 100, intervalMs: 1_000 }, 1],
      );
      assert.equal(t.claimRequests(), claimsBefore + 1, 'a change of limits asks for a claim');
      const kept = await patch('partner', { concurrency: null });
      assert.deepEqual([kept.body.concurrency, kept.body.keyConcurrency], [null, 1]);
      const stored = (await t.store.listQueues()).find((q) => q.name === 'partner');
      assert.deepEqual(stored?.rateLimit, { limit: 100, intervalMs: 1_000 });
      const listed = await request('GET', '/queues');
      const view = (listed.body.queues as Array<Record<string, unknown>>).find((q) => q.name === 'partner');
      assert.deepEqual(
        [view?.concurrency, view?.rateLimit, view?.keyConcurrency],
        [null, { limit: 100, intervalMs: 1_000 }, 1],
      );
    });

    it('PATCH /queues/:name refuses limits that are not ones, and changes nothing', async () => {
      for (const [payload, message] of [
        [{ concurrency: 0 }, /\/concurrency must be an integer from 1 to 100000, or null for no limit/],
        [{ keyConcurrency: 2.5 }, /\/keyConcurrency must be an integer from 1/],
        [{ rateLimit: { limit: 10 } }, /rateLimit/],
        [
          { rateLimit: { limit: 10, intervalMs: 0 } },
          /"intervalMs": a whole number of ms from 1 to 86400000/,
        ],
        [{}, /at least one of concurrency, rateLimit, keyConcurrency/],
        [{ concurrency: 1, burst: 3 }, /burst/],
      ] as const) {
        const answer = await patch('strict', payload);
        assert.equal(answer.status, 400, JSON.stringify(payload));
        assert.equal(answer.body.code, 'INVALID_REQUEST');
        assert.match(String(answer.body.message), message);
      }
      assert.equal(
        (await t.store.listQueues()).find((q) => q.name === 'strict'),
        undefined,
        'nothing was written',
      );
    });
  });
}

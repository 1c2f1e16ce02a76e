import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '@nudge/test-databases';
import { createTestApp, jsonBody, type TestApp } from './test-app.js';

for (const dialect of DIALECTS) {
  describe(`GET /jobs/:id/dependents: ${dialect}`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect);
    });
    after(async () => t.close());

    const get = async (url: string) => {
      const response = await t.app.inject({ method: 'GET', url });
      return { status: response.statusCode, body: jsonBody(response) };
    };
    const idsOf = (body: Record<string, unknown>) =>
      (body.jobs as Array<{ id: number }>).map((job) => job.id);

    it('lists the direct dependents of a job, oldest first, paged, with their statuses', async () => {
      const [root, a, b, c] = await t.store.enqueueMany([
        { kind: 'echo', payload: { secret: 1 } },
        { kind: 'echo', dependsOn: [{ index: 0 }], payload: { big: 'x' } },
        { kind: 'echo', dependsOn: [{ index: 0 }], onDependencyFailure: 'run' },
        { kind: 'echo', dependsOn: [{ index: 1 }] },
      ]);
      assert.ok(root && a && b && c);
      const all = await get(`/jobs/${root.id}/dependents`);
      assert.equal(all.status, 200);
      assert.deepEqual(idsOf(all.body), [a.id, b.id]);
      assert.equal(all.body.nextCursor, null);
      const [first] = all.body.jobs as Array<Record<string, unknown>>;
      assert.equal(first?.status, 'WAITING');
      assert.deepEqual(first?.dependsOn, [root.id]);
      assert.equal('payload' in (first ?? {}), false, 'listed without payload');
      assert.deepEqual(idsOf((await get(`/jobs/${a.id}/dependents`)).body), [c.id]);
      assert.deepEqual(idsOf((await get(`/jobs/${c.id}/dependents`)).body), []);

      const page = await get(`/jobs/${root.id}/dependents?limit=1`);
      assert.deepEqual(idsOf(page.body), [a.id]);
      assert.equal(page.body.nextCursor, String(a.id));
      const rest = await get(`/jobs/${root.id}/dependents?limit=1&cursor=${String(page.body.nextCursor)}`);
      assert.deepEqual(idsOf(rest.body), [b.id]);

      // Cancelling the root cancels a (and c), releases b: the list shows where each went.
      assert.equal((await t.app.inject({ method: 'POST', url: `/jobs/${root.id}/cancel` })).statusCode, 200);
      const after = await get(`/jobs/${root.id}/dependents`);
      assert.deepEqual(
        (after.body.jobs as Array<{ id: number; status: string }>).map((job) => [job.id, job.status]),
        [
          [a.id, 'CANCELLED'],
          [b.id, 'PENDING'],
        ],
      );
    });

    it('answers 404 JOB_NOT_FOUND for an unknown job and 400 for a bad query', async () => {
      const missing = await get('/jobs/999999/dependents');
      assert.equal(missing.status, 404);
      assert.equal(missing.body.code, 'JOB_NOT_FOUND');
      const job = await t.store.enqueue({ kind: 'echo' });
      for (const [query, message] of [
        ['?limit=0', /^querystring\/limit must be a whole number from 1 to 100/],
        ['?cursor=x', /^querystring\/cursor must be the nextCursor of the previous page/],
        ['?status=FAILED', /querystring\/status is not allowed/],
      ] as const) {
        const { status, body } = await get(`/jobs/${job.id}/dependents${query}`);
        assert.equal(status, 400, query);
        assert.equal(body.code, 'INVALID_REQUEST', query);
        assert.match(String(body.message), message, query);
      }
    });
  });
}

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '@nudge/test-databases';
import { createTestApp, jsonBody, type TestApp } from './test-app.js';

for (const dialect of DIALECTS) {
  describe(`job dependencies over HTTP: ${dialect}`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect);
    });
    after(async () => t.close());

    const total = async (): Promise<number> =>
      Object.values(await t.store.countByStatus()).reduce((sum, n) => sum + n, 0);
    const post = (url: string, payload: Record<string, unknown>) =>
      t.app.inject({ method: 'POST', url, payload });

    it('a batch writes a flow in one go: index refs become ids, the merge job WAITs', async () => {
      const response = await post('/jobs/batch', {
        jobs: [
          { kind: 'echo', payload: { part: 0 } },
          { kind: 'echo', payload: { part: 1 } },
          { kind: 'echo', dependsOn: [{ index: 0 }, { index: 1 }], onDependencyFailure: 'run' },
        ],
      });
      assert.equal(response.statusCode, 201, response.body);
      const views = jsonBody(response).jobs as Array<Record<string, unknown>>;
      const [p0, p1, merge] = views;
      assert.ok(p0 && p1 && merge);
      assert.deepEqual(
        views.map((v) => [v.status, v.dependsOn, v.onDependencyFailure]),
        [
          ['PENDING', [], null],
          ['PENDING', [], null],
          ['WAITING', [p0.id, p1.id], 'run'],
        ],
      );
      const shown = await t.app.inject({ method: 'GET', url: `/jobs/${String(merge.id)}` });
      assert.equal(shown.statusCode, 200);
      assert.deepEqual(jsonBody(shown).blockedBy, [p0.id, p1.id]);
      assert.equal(jsonBody(shown).status, 'WAITING');
      assert.equal(
        (await t.app.inject({ method: 'GET', url: `/jobs/${String(p0.id)}` })).json<Record<string, unknown>>()
          .blockedBy,
        undefined,
        'a job without dependencies shows no blockedBy',
      );
      const cancelled = await post(`/jobs/${String(p0.id)}/cancel`, {});
      assert.equal(cancelled.statusCode, 200, cancelled.body);
      assert.deepEqual(
        jsonBody(await t.app.inject({ method: 'GET', url: `/jobs/${String(merge.id)}` })).blockedBy,
        [p1.id],
      );
      const list = await t.app.inject({ method: 'GET', url: '/jobs?status=WAITING' });
      assert.equal(list.statusCode, 200, list.body);
      assert.deepEqual(
        (jsonBody(list).jobs as Array<{ id: number }>).map((job) => job.id),
        [merge.id],
      );
      const stats = await t.app.inject({ method: 'GET', url: '/stats' });
      assert.equal(stats.statusCode, 200, stats.body);
      assert.equal((jsonBody(stats).byStatus as Record<string, number>).WAITING, 1);
    });

    it('POST /jobs takes dependsOn ids and refuses an unknown one with DEPENDENCY_NOT_FOUND', async () => {
      const first = await post('/jobs', { kind: 'echo' });
      const id = Number(jsonBody(first).id);
      const dependent = await post('/jobs', { kind: 'echo', dependsOn: [id] });
      assert.equal(dependent.statusCode, 201, dependent.body);
      assert.equal(jsonBody(dependent).status, 'WAITING');
      assert.deepEqual(jsonBody(dependent).dependsOn, [id]);
      const before = await total();
      const unknown = await post('/jobs', { kind: 'echo', dependsOn: [id, 99_999_999] });
      assert.equal(unknown.statusCode, 400);
      assert.equal(jsonBody(unknown).code, 'DEPENDENCY_NOT_FOUND');
      assert.match(String(jsonBody(unknown).message), /99999999/);
      const index = await post('/jobs', { kind: 'echo', dependsOn: [{ index: 0 }] });
      assert.equal(index.statusCode, 400);
      assert.equal(jsonBody(index).code, 'INVALID_REQUEST');
      assert.match(String(jsonBody(index).message), /\/dependsOn\/0 .*only a job of a batch/);
      const mode = await post('/jobs', { kind: 'echo', dependsOn: [id], onDependencyFailure: 'skip' });
      assert.equal(mode.statusCode, 400);
      assert.match(String(jsonBody(mode).message), /\/onDependencyFailure must be 'cancel' or 'run'/);
      assert.equal(await total(), before, 'nothing was written');
    });

    it('a batch refuses a later index by job, and an unknown id, writing nothing', async () => {
      const before = await total();
      const later = await post('/jobs/batch', {
        jobs: [
          { kind: 'echo', dependsOn: [{ index: 1 }] },
          { kind: 'echo' },
          { kind: 'echo', dependsOn: [{ index: 2 }] },
        ],
      });
      assert.equal(later.statusCode, 400);
      const body = jsonBody(later);
      assert.equal(body.code, 'INVALID_BATCH');
      assert.deepEqual(
        (body.errors as Array<{ index: number; code: string }>).map((e) => [e.index, e.code]),
        [
          [0, 'INVALID_REQUEST'],
          [2, 'INVALID_REQUEST'],
        ],
      );
      assert.match(
        (body.errors as Array<{ message: string }>)[0]?.message ?? '',
        /refers to job 1 of the batch, which is not earlier than this job \(0\)/,
      );
      const unknown = await post('/jobs/batch', {
        jobs: [{ kind: 'echo' }, { kind: 'echo', dependsOn: [{ index: 0 }, 88_888_888] }],
      });
      assert.equal(unknown.statusCode, 400);
      assert.equal(jsonBody(unknown).code, 'DEPENDENCY_NOT_FOUND');
      assert.match(String(jsonBody(unknown).message), /\/jobs\/1\/dependsOn names job 88888888/);
      assert.equal(await total(), before, 'nothing was written');
    });
  });
}

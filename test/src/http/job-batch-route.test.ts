import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_BATCH_JOBS } from '@nudge/http';
import { DIALECTS } from '@nudge/test-databases';
import { createTestApp, jsonBody, type TestApp } from './test-app.js';

for (const dialect of DIALECTS) {
  describe(`POST /jobs/batch: ${dialect}`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect);
    });
    after(async () => t.close());

    const total = async (): Promise<number> =>
      Object.values(await t.store.countByStatus()).reduce((sum, n) => sum + n, 0);

    it('writes every job in input order, answers their views and requests one claim', async () => {
      const claimsBefore = t.claimRequests();
      const jobs = [
        { kind: 'echo', payload: { n: 0 } },
        { kind: 'sendEmail', payload: { to: 'a@example.com' }, priority: -3, maxAttempts: 2 },
        { kind: 'echo', runAt: '2030-01-01T00:00:00Z' },
      ];
      const response = await t.app.inject({ method: 'POST', url: '/jobs/batch', payload: { jobs } });
      assert.equal(response.statusCode, 201, response.body);
      const views = (jsonBody(response).jobs ?? []) as Array<Record<string, unknown>>;
      assert.deepEqual(
        views.map((v) => [v.kind, v.priority, v.maxAttempts, v.status]),
        [
          ['echo', 0, 5, 'PENDING'],
          ['sendEmail', -3, 2, 'PENDING'],
          ['echo', 0, 5, 'SCHEDULED'],
        ],
      );
      const ids = views.map((v) => Number(v.id));
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => a - b),
        'ids ascend in input order',
      );
      assert.deepEqual((await t.store.getJob(ids[0] ?? 0))?.payload, { n: 0 });
      assert.equal(t.claimRequests() - claimsBefore, 1);
    });

    it('marks jobs whose idempotency key existed, and answers 200 when every one did', async () => {
      const jobs = [
        { kind: 'echo', idempotencyKey: 'a' },
        { kind: 'echo', idempotencyKey: 'b' },
        { kind: 'echo', idempotencyKey: 'a' },
      ];
      const first = await t.app.inject({ method: 'POST', url: '/jobs/batch', payload: { jobs } });
      assert.equal(first.statusCode, 201);
      const views = jsonBody(first).jobs as Array<{ id: number; created: boolean }>;
      assert.deepEqual(
        views.map((v) => v.created),
        [true, true, false],
      );
      assert.equal(views[2]?.id, views[0]?.id);
      const again = await t.app.inject({ method: 'POST', url: '/jobs/batch', payload: { jobs } });
      assert.equal(again.statusCode, 200);
      assert.deepEqual(
        (jsonBody(again).jobs as Array<{ id: number; created: boolean }>).map((v) => [v.id, v.created]),
        views.map((v) => [v.id, false]),
      );
    });

    it('refuses a batch with invalid jobs, naming each by index with its code, and writes nothing', async () => {
      const before = await total();
      const claimsBefore = t.claimRequests();
      const jobs = [
        { kind: 'echo' },
        { kind: 'nope' },
        { kind: 'echo', priority: 1.5 },
        { kind: 'echo', payload: { s: 'a\u0000' } },
        'not a job',
        { kind: 'echo', extra: 1 },
      ];
      const response = await t.app.inject({ method: 'POST', url: '/jobs/batch', payload: { jobs } });
      assert.equal(response.statusCode, 400, response.body);
      const body = jsonBody(response);
      assert.equal(body.code, 'INVALID_BATCH');
      assert.match(
        String(body.message),
        /^5 of 6 jobs are invalid, so none was written: \/jobs\/1: unknown job kind "nope"/,
      );
      assert.deepEqual(
        (body.errors as Array<{ index: number; code: string; message: string }>).map((e) => [
          e.index,
          e.code,
        ]),
        [
          [1, 'UNKNOWN_KIND'],
          [2, 'INVALID_REQUEST'],
          [3, 'PAYLOAD_UNSTORABLE'],
          [4, 'INVALID_REQUEST'],
          [5, 'INVALID_REQUEST'],
        ],
      );
      const messages = (body.errors as Array<{ message: string }>).map((e) => e.message);
      assert.match(messages[1] ?? '', /^\/priority must be an integer from -1000 to 1000 \(got 1\.5\)$/);
      assert.match(messages[2] ?? '', /^\/payload\/s: a string contains U\+0000/);
      assert.match(messages[3] ?? '', /^the job must be a JSON object/);
      assert.match(messages[4] ?? '', /^\/extra is not a job field/);
      assert.equal(await total(), before);
      assert.equal(t.claimRequests(), claimsBefore);
    });

    it(`takes 1 to ${MAX_BATCH_JOBS} jobs`, async () => {
      for (const jobs of [[], Array.from({ length: MAX_BATCH_JOBS + 1 }, () => ({ kind: 'echo' }))]) {
        const response = await t.app.inject({ method: 'POST', url: '/jobs/batch', payload: { jobs } });
        assert.equal(response.statusCode, 400, response.body);
        assert.equal(jsonBody(response).code, 'INVALID_REQUEST');
        assert.match(String(jsonBody(response).message), /^\/jobs must hold at (least 1|most 1000) items/);
      }
      const full = Array.from({ length: MAX_BATCH_JOBS }, (_, n) => ({ kind: 'echo', payload: { n } }));
      const response = await t.app.inject({ method: 'POST', url: '/jobs/batch', payload: { jobs: full } });
      assert.equal(response.statusCode, 201);
      assert.equal((jsonBody(response).jobs as unknown[]).length, MAX_BATCH_JOBS);
    });
  });
}

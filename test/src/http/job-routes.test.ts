import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '@nudge/test-databases';
import { createTestApp, jsonBody, type TestApp } from './test-app.js';

for (const dialect of DIALECTS) {
  describe(`POST /jobs and GET /jobs/:id: ${dialect}`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect);
    });
    after(async () => t.close());

    it('an existing kind and idempotency key answers 200 with that job and creates nothing', async () => {
      const body = { kind: 'echo', payload: { n: 1 }, idempotencyKey: 'invoice-7' };
      const created = await t.app.inject({ method: 'POST', url: '/jobs', payload: body });
      assert.equal(created.statusCode, 201);
      assert.equal(jsonBody(created).idempotencyKey, 'invoice-7');
      const again = await t.app.inject({
        method: 'POST',
        url: '/jobs',
        payload: { ...body, payload: { n: 2 } },
      });
      assert.equal(again.statusCode, 200);
      assert.equal(jsonBody(again).id, jsonBody(created).id);
      assert.deepEqual(jsonBody(again).payload, { n: 1 });
      assert.equal(again.headers.location, created.headers.location);
    });

    it('creates a job with every field and reads it back', async () => {
      const body = {
        kind: 'sendEmail',
        payload: { to: 'a@example.com', tags: ['x', 1, null, true] },
        priority: -7,
        runAt: '2030-01-01T10:00:00.250+01:00',
        maxAttempts: 3,
        concurrencyKey: 'customer-9',
      };
      const created = await t.app.inject({ method: 'POST', url: '/jobs', payload: body });
      assert.equal(created.statusCode, 201);
      const view = jsonBody(created);
      assert.equal(typeof view.id, 'number');
      assert.equal(created.headers.location, `/jobs/${String(view.id)}`);
      assert.deepEqual(Object.keys(view).sort(), [
        'attempts',
        'concurrencyKey',
        'createdAt',
        'debounceKey',
        'dependsOn',
        'errors',
        'finishedAt',
        'id',
        'idempotencyKey',
        'kind',
        'lastError',
        'maxAttempts',
        'onDependencyFailure',
        'payload',
        'priority',
        'progress',
        'queue',
        'result',
        'runAt',
        'startedAt',
        'status',
        'throttleKey',
      ]);
      assert.equal(view.kind, 'sendEmail');
      assert.equal(view.status, 'SCHEDULED', 'due in the future');
      assert.equal(view.attempts, 0);
      assert.equal(view.maxAttempts, 3);
      assert.equal(view.concurrencyKey, 'customer-9');
      assert.equal(view.priority, -7);
      assert.equal(view.runAt, '2030-01-01T09:00:00.250Z');
      assert.deepEqual(view.payload, body.payload);
      assert.equal(view.result, null);
      assert.equal(view.lastError, null);
      assert.equal(view.progress, null);
      assert.deepEqual(view.errors, []);
      assert.match(String(view.createdAt), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      assert.equal(view.startedAt, null);
      assert.equal(view.finishedAt, null);

      const read = await t.app.inject({ method: 'GET', url: `/jobs/${String(view.id)}` });
      assert.equal(read.statusCode, 200);
      assert.deepEqual(jsonBody(read), view);

      const stored = await t.store.getJob(Number(view.id));
      assert.equal(stored?.runAt.toISOString(), '2030-01-01T09:00:00.250Z');
      assert.deepEqual(stored?.payload, body.payload);
    });

    it('fills omitted fields with the store defaults', async () => {
      const created = await t.app.inject({ method: 'POST', url: '/jobs', payload: { kind: 'echo' } });
      assert.equal(created.statusCode, 201);
      const view = jsonBody(created);
      assert.deepEqual(view.payload, {});
      assert.equal(view.priority, 0);
      assert.equal(view.maxAttempts, 5);
      assert.equal(view.runAt, view.createdAt);
    });

    it('keeps any JSON payload, including null and scalars', async () => {
      for (const payload of [null, 42, 'text', [1, { a: [] }]]) {
        const created = await t.app.inject({
          method: 'POST',
          url: '/jobs',
          payload: { kind: 'echo', payload },
        });
        assert.equal(created.statusCode, 201);
        assert.deepEqual(jsonBody(created).payload, payload);
      }
    });

    it('requests one claim per job created', async () => {
      const before = t.claimRequests();
      await t.app.inject({ method: 'POST', url: '/jobs', payload: { kind: 'echo' } });
      await t.app.inject({ method: 'POST', url: '/jobs', payload: { kind: 'echo' } });
      assert.equal(t.claimRequests(), before + 2);
    });

    it('shows progress and the attempt-error history, times as ISO text', async () => {
      const job = await t.store.enqueue({ kind: 'progressTest', maxAttempts: 3 });
      const [claimed] = await t.store.claim({
        workerId: 'w-1',
        leaseMs: 10_000,
        groups: [{ kinds: ['progressTest'], limit: 1 }],
      });
      assert.equal(claimed?.id, job.id);
      const lease = { id: job.id, version: claimed.version };
      await t.store.setProgress([{ ...lease, progressJson: '{"percent":40,"step":"upload"}' }]);
      await t.store.fail([{ ...lease, error: 'boom', retryDelayMs: 0 }]);
      const view = jsonBody(await t.app.inject({ method: 'GET', url: `/jobs/${job.id}` }));
      assert.deepEqual(view.progress, { percent: 40, step: 'upload' });
      const errors = view.errors as Array<Record<string, unknown>>;
      assert.equal(errors.length, 1);
      assert.deepEqual(
        { ...errors[0], at: undefined },
        { attempt: 1, at: undefined, error: 'boom', instance: 'w-1' },
      );
      assert.match(String(errors[0]?.at), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      const list = jsonBody(await t.app.inject({ method: 'GET', url: `/jobs?ids=${job.id}` }));
      const [listed] = list.jobs as Array<Record<string, unknown>>;
      assert.deepEqual(listed?.errors, view.errors);
      assert.deepEqual(listed?.progress, view.progress);
    });

    it('answers 404 JOB_NOT_FOUND for an unknown id', async () => {
      const response = await t.app.inject({ method: 'GET', url: '/jobs/999999' });
      assert.equal(response.statusCode, 404);
      assert.deepEqual(jsonBody(response), {
        statusCode: 404,
        code: 'JOB_NOT_FOUND',
        error: 'Not Found',
        message: 'no job has id 999999',
      });
    });
  });
}

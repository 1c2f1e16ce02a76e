// Without a tracer provider, POST /jobs and POST /jobs/batch store the caller's traceparent and
// tracestate headers as the jobs' trace_context; a malformed header is ignored, not refused.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '@nudge/test-databases';
import { rawQuery } from '../helpers/index.js';
import { createTestApp, jsonBody, type TestApp } from './test-app.js';

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

for (const dialect of DIALECTS) {
  describe(`trace context of enqueues without a tracer provider: ${dialect}`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect);
    });
    after(async () => t.close());

    const traceContextOf = async (id: unknown): Promise<string | null> =>
      (
        await rawQuery<{ trace_context: string | null }>(
          t.db,
          `SELECT trace_context FROM nudge_jobs WHERE id = ${Number(id)}`,
        )
      )[0]?.trace_context ?? null;

    it('POST /jobs stores the traceparent and tracestate headers', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/jobs',
        headers: { traceparent: TRACEPARENT, tracestate: 'vendor=1,other=2' },
        payload: { kind: 'echo' },
      });
      assert.equal(response.statusCode, 201);
      assert.deepEqual(JSON.parse((await traceContextOf(jsonBody(response).id)) ?? 'null'), {
        traceparent: TRACEPARENT,
        tracestate: 'vendor=1,other=2',
      });
    });

    it('a tracestate header past the W3C bounds, or malformed, is dropped and the job accepted', async () => {
      const tooMany = Array.from({ length: 33 }, (_, i) => `k${i}=v`).join(',');
      for (const tracestate of [tooMany, `a=${'x'.repeat(600)}`, 'not a member']) {
        const response = await t.app.inject({
          method: 'POST',
          url: '/jobs',
          headers: { traceparent: TRACEPARENT, tracestate },
          payload: { kind: 'echo' },
        });
        assert.equal(response.statusCode, 201, tracestate);
        assert.deepEqual(JSON.parse((await traceContextOf(jsonBody(response).id)) ?? 'null'), {
          traceparent: TRACEPARENT,
        });
      }
    });

    it('a job enqueued without a traceparent, or with a malformed one, has none', async () => {
      for (const headers of [
        {},
        { traceparent: 'not-a-traceparent' },
        { traceparent: `00-${'0'.repeat(32)}-00f067aa0ba902b7-01` },
      ]) {
        const response = await t.app.inject({
          method: 'POST',
          url: '/jobs',
          headers,
          payload: { kind: 'echo' },
        });
        assert.equal(response.statusCode, 201);
        assert.equal(await traceContextOf(jsonBody(response).id), null);
      }
    });

    it('POST /jobs/batch gives every job of the batch the header', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/jobs/batch',
        headers: { traceparent: TRACEPARENT },
        payload: { jobs: [{ kind: 'echo' }, { kind: 'sendEmail', payload: { to: 'a@example.com' } }] },
      });
      assert.equal(response.statusCode, 201);
      const jobs = jsonBody(response).jobs as { id: number }[];
      assert.equal(jobs.length, 2);
      for (const job of jobs)
        assert.equal(await traceContextOf(job.id), JSON.stringify({ traceparent: TRACEPARENT }));
    });

    it('a body cannot set the trace context: traceContext is not a field of POST /jobs', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/jobs',
        payload: { kind: 'echo', traceContext: JSON.stringify({ traceparent: TRACEPARENT }) },
      });
      assert.equal(response.statusCode, 400);
    });
  });
}

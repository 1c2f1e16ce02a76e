// Bound: GET /jobs of 100 jobs whose payloads are 1 MiB each. Summaries leave payload and result
// out; with fields=payload every answer stays under MAX_LIST_RESPONSE_BYTES, cut with a cursor
// that reaches every job once. The client follows the same cursors.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createClient } from '@nudge/client';
import { MAX_LIST_RESPONSE_BYTES } from '@nudge/http';
import { DIALECTS } from '@nudge/test-databases';
import { createTestApp, jsonBody, type TestApp } from './test-app.js';

const JOBS = 100;
const MIB = 1_048_576;
/** A summary is under 1 kB: the whole page of 100 under 100 kB. */
const MAX_SUMMARY_PAGE_BYTES = 100_000;

interface Page {
  jobs: Array<{ id: number; payload?: unknown; result?: unknown }>;
  nextCursor: string | null;
}

for (const dialect of DIALECTS) {
  describe(`GET /jobs of ${JOBS} jobs of 1 MiB: ${dialect}`, () => {
    let t: TestApp;
    let ids: number[];
    before(async () => {
      t = await createTestApp(dialect);
      const payload = { blob: 'x'.repeat(MIB) };
      const jobs = [];
      for (let n = 0; n < JOBS; n += 10)
        jobs.push(
          ...(await t.store.enqueueMany(
            Array.from({ length: 10 }, () => ({ kind: 'echo', queue: 'big', payload })),
          )),
        );
      ids = jobs.map((job) => job.id).sort((a, b) => b - a);
    });
    after(() => t.close());

    const get = async (url: string) => {
      const response = await t.app.inject({ method: 'GET', url });
      return { status: response.statusCode, bytes: response.rawPayload.length, body: jsonBody(response) };
    };

    it('lists summaries without payload and result: the page of 100 is under 100 kB', async () => {
      const { status, bytes, body } = await get('/jobs?queue=big&limit=100');
      assert.equal(status, 200);
      const page = body as unknown as Page;
      assert.equal(page.jobs.length, JOBS);
      assert.ok(bytes < MAX_SUMMARY_PAGE_BYTES, `${bytes} bytes`);
      assert.ok(page.jobs.every((job) => !('payload' in job) && !('result' in job)));
      assert.equal(page.nextCursor, String(ids.at(-1)), 'a full page has a cursor');
    });

    it('with fields=payload, cuts every answer under the cap and its cursors reach every job once', async () => {
      const seen: number[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const { status, bytes, body } = await get(
          `/jobs?queue=big&limit=100&fields=payload${cursor === null ? '' : `&cursor=${cursor}`}`,
        );
        assert.equal(status, 200);
        assert.ok(bytes <= MAX_LIST_RESPONSE_BYTES, `page ${pages}: ${bytes} bytes`);
        const page = body as unknown as Page;
        assert.ok(page.jobs.length >= 1 && page.jobs.length < JOBS);
        assert.ok(page.jobs.every((job) => (job.payload as { blob: string }).blob.length === MIB));
        assert.ok(page.jobs.every((job) => !('result' in job)));
        seen.push(...page.jobs.map((job) => job.id));
        cursor = page.nextCursor;
        pages += 1;
      } while (cursor !== null && pages <= JOBS);
      assert.deepEqual(seen, ids);
      assert.ok(pages >= JOBS / Math.floor(MAX_LIST_RESPONSE_BYTES / MIB), `${pages} pages`);
    });

    it('cuts an ids read alike, continued with cursor; the client follows those cursors', async () => {
      const first = await get(`/jobs?ids=${ids.join(',')}&fields=payload,result`);
      const page = first.body as unknown as Page;
      assert.equal(first.status, 200);
      assert.ok(first.bytes <= MAX_LIST_RESPONSE_BYTES);
      assert.ok(page.jobs.length < JOBS && page.nextCursor !== null);
      assert.ok(page.jobs.every((job) => job.result === null));
      const next = await get(`/jobs?ids=${ids.join(',')}&fields=payload&cursor=${page.nextCursor}`);
      assert.equal((next.body as unknown as Page).jobs[0]?.id, ids[page.jobs.length]);

      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const address = t.app.server.address();
      assert.ok(address && typeof address === 'object');
      const client = createClient({ baseUrl: `http://127.0.0.1:${address.port}`, pollIntervalMs: 10 });
      const listed = await client.list({ queue: 'big', limit: 100, fields: ['payload'] });
      assert.ok(listed.jobs.length < JOBS && listed.nextCursor !== null);
      await t.store.cancelJobs({ queue: 'big' });
      const views = await client.waitFor(ids);
      assert.deepEqual(
        views.map((view) => [view.id, view.status, (view.payload as { blob: string }).blob.length]),
        ids.map((id) => [id, 'CANCELLED', MIB]),
        'waitFor reads every job whole across cut answers',
      );
    });

    it('refuses a field it cannot add, naming it', async () => {
      for (const fields of ['payload,bogus', '', 'payload,,result', 'errors']) {
        const { status, body } = await get(`/jobs?fields=${fields}`);
        assert.equal(status, 400, fields);
        assert.equal(body.code, 'INVALID_REQUEST');
        const bad = fields.split(',').find((f) => f !== 'payload' && f !== 'result') ?? '';
        assert.match(
          String(body.message),
          new RegExp(`^querystring/fields: ${JSON.stringify(bad)} is not a field`),
        );
      }
      const { status } = await get('/jobs?fields=result,payload');
      assert.equal(status, 200);
    });
  });
}

// GET /jobs/:id/logs on both dialects: pages by seq with the cursor, the count of lines dropped,
// 404 for no job, 400 for a bad query, and the read scope.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fitJobLogLine } from '@nudge/core';
import { DIALECTS } from '@nudge/test-databases';
import { createTestApp, jsonBody, type TestApp } from './test-app.js';

for (const dialect of DIALECTS) {
  describe(`GET /jobs/:id/logs: ${dialect}`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect, {
        apiKeys: [
          { key: 'reader', scopes: ['read'] },
          { key: 'producer', scopes: ['enqueue'] },
        ],
      });
    });
    after(async () => t.close());

    const get = async (url: string, key = 'reader') => {
      const response = await t.app.inject({
        method: 'GET',
        url,
        headers: { authorization: `Bearer ${key}` },
      });
      return { status: response.statusCode, body: jsonBody(response) };
    };

    /** A job that logged `count` lines under a cap of 5 lines. */
    let kinds = 0;
    async function loggedJob(count: number): Promise<number> {
      // A kind of its own, so that the claim takes this job.
      const kind = `logged${(kinds += 1)}`;
      const job = await t.store.enqueue({ kind });
      const [claimed] = await t.store.claim({
        workerId: 'w',
        leaseMs: 10_000,
        groups: [{ kinds: [kind], limit: 1 }],
      });
      assert.equal(claimed?.id, job.id);
      const lines = Array.from({ length: count }, (_, i) =>
        fitJobLogLine(i === 0 ? 'warn' : 'info', `line ${i + 1}`, i === 0 ? '{"rows":3,"tags":["a"]}' : null),
      );
      await t.store.appendJobLogs([{ id: job.id, version: claimed.version, attempt: 1, lines }], {
        linesPerJob: 5,
        bytesPerJob: 1_000_000,
      });
      return job.id;
    }

    it('answers the first page, then the next from the cursor, then an empty page keeping the cursor', async () => {
      const id = await loggedJob(7);
      const first = await get(`/jobs/${id}/logs?limit=2`);
      assert.equal(first.status, 200);
      const lines = first.body.lines as Array<Record<string, unknown>>;
      assert.deepEqual(
        { ...first.body, lines: lines.map((l) => ({ ...l, at: undefined })) },
        {
          id,
          lines: [
            {
              seq: 1,
              attempt: 1,
              level: 'warn',
              message: 'line 1',
              fields: { rows: 3, tags: ['a'] },
              at: undefined,
            },
            { seq: 2, attempt: 1, level: 'info', message: 'line 2', fields: null, at: undefined },
          ],
          dropped: 2,
          cursor: 2,
        },
      );
      assert.match(String(lines[0]?.at), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      const next = await get(`/jobs/${id}/logs?after=2`);
      assert.deepEqual(
        (next.body.lines as Array<{ seq: number }>).map((l) => l.seq),
        [3, 4, 5],
      );
      assert.equal(next.body.cursor, 5);
      const end = await get(`/jobs/${id}/logs?after=5&limit=10`);
      assert.deepEqual({ ...end.body }, { id, lines: [], dropped: 2, cursor: 5 });
      const far = await get(`/jobs/${id}/logs?after=999999999999999`);
      assert.deepEqual(far.body.lines, []);
      assert.equal(far.body.cursor, 999999999999999);
    });

    it('answers an empty log for a job that never logged', async () => {
      const job = await t.store.enqueue({ kind: 'echo' });
      assert.deepEqual((await get(`/jobs/${job.id}/logs`)).body, {
        id: job.id,
        lines: [],
        dropped: 0,
        cursor: 0,
      });
    });

    it('answers 404 JOB_NOT_FOUND for no job', async () => {
      const response = await get('/jobs/999999/logs');
      assert.equal(response.status, 404);
      assert.equal(response.body.code, 'JOB_NOT_FOUND');
      assert.equal(response.body.message, 'no job has id 999999');
    });

    it('answers 400 INVALID_REQUEST for a bad query, saying what to send', async () => {
      const job = await t.store.enqueue({ kind: 'echo' });
      for (const [query, says] of [
        ['limit=0', /limit must be a whole number from 1 to 1000/],
        ['limit=1001', /limit must be a whole number from 1 to 1000/],
        ['after=-1', /after must be a whole number from 0/],
        ['after=x', /after must be a whole number from 0/],
        ['level=info', /level/],
      ] as const) {
        const response = await get(`/jobs/${job.id}/logs?${query}`);
        assert.equal(response.status, 400, query);
        assert.equal(response.body.code, 'INVALID_REQUEST', query);
        assert.match(String(response.body.message), says, query);
      }
    });

    it('needs the read scope', async () => {
      const id = await loggedJob(1);
      const refused = await get(`/jobs/${id}/logs`, 'producer');
      assert.equal(refused.status, 403);
      assert.equal(refused.body.code, 'FORBIDDEN');
    });
  });
}

// Bound: GET /queues and GET /stats with many queue names. Each answers one page of names
// (default 100, at most 500) whatever the number of queues, and its cursors reach every queue
// exactly once.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_NAME_PAGE_LIMIT, MAX_NAME_PAGE_LIMIT } from '@nudge/http';
import { DIALECTS } from '@nudge/test-databases';
import { createTestApp, jsonBody, type TestApp } from './test-app.js';

const QUEUES = 5000;
/** A queue's view is about 200 bytes with a short name; 100-character names stay under 400. */
const MAX_QUEUE_PAGE_BYTES = MAX_NAME_PAGE_LIMIT * 400;
/** A kind's or queue's counts are about 130 bytes: two full lists and the rest under this. */
const MAX_STATS_PAGE_BYTES = 2 * MAX_NAME_PAGE_LIMIT * 250;

for (const dialect of DIALECTS) {
  describe(`GET /queues and GET /stats with ${QUEUES} queues: ${dialect}`, () => {
    let t: TestApp;
    const names = Array.from({ length: QUEUES }, (_, n) => `queue-${String(n).padStart(5, '0')}`);
    before(async () => {
      t = await createTestApp(dialect);
      for (let start = 0; start < QUEUES; start += 1000)
        await t.store.enqueueMany(names.slice(start, start + 1000).map((queue) => ({ kind: 'echo', queue })));
    });
    after(() => t.close());

    const get = async (url: string) => {
      const response = await t.app.inject({ method: 'GET', url });
      return { status: response.statusCode, bytes: response.rawPayload.length, body: jsonBody(response) };
    };

    it('GET /queues answers pages of at most 500 queues whose cursors reach every queue once', async () => {
      const first = await get('/queues');
      assert.equal(first.status, 200);
      assert.equal((first.body.queues as unknown[]).length, DEFAULT_NAME_PAGE_LIMIT);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await get(
          `/queues?limit=${MAX_NAME_PAGE_LIMIT}${cursor === null ? '' : `&cursor=${cursor}`}`,
        );
        assert.equal(page.status, 200);
        assert.ok(page.bytes < MAX_QUEUE_PAGE_BYTES, `${page.bytes} bytes`);
        const queues = page.body.queues as Array<{ name: string; pending: number }>;
        assert.ok(queues.length <= MAX_NAME_PAGE_LIMIT);
        assert.ok(queues.every((queue) => queue.pending === 1));
        seen.push(...queues.map((queue) => queue.name));
        cursor = page.body.nextCursor as string | null;
      } while (cursor !== null);
      assert.deepEqual(seen, names);
    });

    it('GET /stats answers the totals and pages of at most 500 kinds and queues, reaching every queue once', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page = await get(
          `/stats?limit=${MAX_NAME_PAGE_LIMIT}${cursor === null ? '' : `&cursor=${cursor}`}`,
        );
        assert.equal(page.status, 200);
        assert.ok(page.bytes < MAX_STATS_PAGE_BYTES, `${page.bytes} bytes`);
        assert.equal(
          (page.body.byStatus as { PENDING: number }).PENDING,
          QUEUES,
          'every page has the totals',
        );
        const byKind = Object.keys(page.body.byKind as object);
        assert.deepEqual(byKind, pages === 0 ? ['echo'] : [], 'the one kind on the first page only');
        seen.push(...Object.keys(page.body.byQueue as object));
        cursor = page.body.nextCursor as string | null;
        pages += 1;
      } while (cursor !== null);
      assert.deepEqual(seen, names);
      assert.equal(pages, QUEUES / MAX_NAME_PAGE_LIMIT + 1, 'the last full page is followed by an empty one');
      const totals = await get('/stats?limit=0');
      assert.deepEqual([totals.body.byKind, totals.body.byQueue, totals.body.nextCursor], [{}, {}, null]);
      assert.ok(totals.bytes < 2000, `${totals.bytes} bytes`);
    });

    it('refuses a limit past 500 and a cursor it did not write, saying what to send', async () => {
      for (const url of [
        '/queues?limit=501',
        '/queues?limit=0',
        '/stats?limit=501',
        '/stats?cursor=abc',
        '/queues?cursor=a%20b',
      ]) {
        const { status, body } = await get(url);
        assert.equal(status, 400, url);
        assert.equal(body.code, 'INVALID_REQUEST', url);
        assert.match(String(body.message), /querystring\/(limit|cursor)/, url);
      }
    });
  });
}

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '@nudge/test-databases';
import { createTestApp, jsonBody, type TestApp } from './test-app.js';

for (const dialect of DIALECTS) {
  describe(`GET /jobs: ${dialect}`, () => {
    let t: TestApp;
    let ids: number[];
    before(async () => {
      t = await createTestApp(dialect);
      const jobs = await t.store.enqueueMany(
        Array.from({ length: 5 }, (_, n) => ({ kind: n < 3 ? 'echo' : 'sendEmail', payload: { n } })),
      );
      ids = jobs.map((job) => job.id);
    });
    after(async () => t.close());

    const list = async (query: string) => {
      const response = await t.app.inject({ method: 'GET', url: `/jobs${query}` });
      return { status: response.statusCode, body: jsonBody(response) };
    };
    const idsOf = (body: Record<string, unknown>) =>
      (body.jobs as Array<{ id: number }>).map((job) => job.id);

    it('pages newest first until nextCursor is null', async () => {
      const first = await list('?limit=2');
      assert.equal(first.status, 200);
      assert.deepEqual(idsOf(first.body), [ids[4], ids[3]]);
      const second = await list(`?limit=2&cursor=${String(first.body.nextCursor)}`);
      assert.deepEqual(idsOf(second.body), [ids[2], ids[1]]);
      const third = await list(`?limit=2&cursor=${String(second.body.nextCursor)}`);
      assert.deepEqual(idsOf(third.body), [ids[0]]);
      assert.equal(third.body.nextCursor, null);
    });

    it('filters by kind and status, and reads many ids at once', async () => {
      assert.deepEqual(idsOf((await list('?kind=sendEmail')).body), [ids[4], ids[3]]);
      assert.deepEqual(idsOf((await list('?status=PENDING&kind=echo&limit=100')).body), [
        ids[2],
        ids[1],
        ids[0],
      ]);
      assert.deepEqual(idsOf((await list('?status=FAILED')).body), []);
      const read = await list(`?ids=${ids[0]},${ids[3]},99999`);
      assert.equal(read.status, 200);
      assert.deepEqual(idsOf(read.body), [ids[3], ids[0]]);
      assert.equal(read.body.nextCursor, null);
    });

    it('filters by concurrencyKey, alone and with the other filters', async () => {
      const keyed = await t.store.enqueueMany([
        { kind: 'echo', queue: 'keyed', concurrencyKey: 'acme' },
        { kind: 'echo', queue: 'keyed', concurrencyKey: 'globex' },
        { kind: 'sendEmail', queue: 'keyed', concurrencyKey: 'acme' },
      ]);
      const [acmeEcho, globex, acmeMail] = keyed.map((job) => job.id);
      const acme = await list('?concurrencyKey=acme');
      assert.equal(acme.status, 200);
      assert.deepEqual(idsOf(acme.body), [acmeMail, acmeEcho]);
      assert.deepEqual(idsOf((await list('?concurrencyKey=acme&kind=echo&queue=keyed')).body), [acmeEcho]);
      assert.deepEqual(idsOf((await list('?concurrencyKey=globex&status=PENDING')).body), [globex]);
      assert.deepEqual(idsOf((await list('?concurrencyKey=initech')).body), []);
      const paged = await list('?concurrencyKey=acme&limit=1');
      assert.deepEqual(idsOf(paged.body), [acmeMail]);
      const rest = await list(`?concurrencyKey=acme&limit=1&cursor=${String(paged.body.nextCursor)}`);
      assert.deepEqual(idsOf(rest.body), [acmeEcho]);
    });

    it('refuses a bad query, naming the parameter', async () => {
      const cases: Array<[string, RegExp]> = [
        ['?limit=0', /^querystring\/limit must be a whole number from 1 to 100/],
        ['?limit=101', /querystring\/limit/],
        ['?status=DONE', /querystring\/status/],
        ['?cursor=abc', /querystring\/cursor must be the nextCursor of the previous page/],
        ['?ids=1,,2', /querystring\/ids must be 1 to 100 job ids/],
        ['?ids=1&kind=echo', /^querystring\/ids cannot be combined with kind/],
        ['?sort=asc', /querystring\/sort is not allowed/],
        ['?kind=a%00b', /^querystring\/kind contains U\+0000/],
        ['?concurrencyKey=', /^querystring\/concurrencyKey must be a string of 1 to 200 characters/],
        ['?concurrencyKey=a%00b', /^querystring\/concurrencyKey contains U\+0000/],
      ];
      for (const [query, message] of cases) {
        const { status, body } = await list(query);
        assert.equal(status, 400, query);
        assert.equal(body.code, 'INVALID_REQUEST', query);
        assert.match(String(body.message), message, query);
      }
    });

    it('answers a URL it cannot decode with 400 INVALID_REQUEST and the error body', async () => {
      const response = await t.app.inject({ method: 'GET', url: '/jobs/%ZZ' });
      assert.equal(response.statusCode, 400);
      assert.equal(response.headers['x-content-type-options'], 'nosniff');
      const body = jsonBody(response);
      assert.equal(body.code, 'INVALID_REQUEST');
      assert.match(String(body.message), /^\/jobs\/%ZZ is not a valid URL/);
    });
  });
}

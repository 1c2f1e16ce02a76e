import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '@nudge/test-databases';
import { createTestApp, jsonBody, type TestApp } from './test-app.js';

const HOUR_MS = 3_600_000;

for (const dialect of DIALECTS) {
  describe(`throttle and debounce over HTTP: ${dialect}`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect);
    });
    after(async () => t.close());

    const total = async (): Promise<number> =>
      Object.values(await t.store.countByStatus()).reduce((sum, n) => sum + n, 0);
    const post = (payload: unknown) =>
      t.app.inject({ method: 'POST', url: '/jobs', payload: payload as object });

    it('POST /jobs with throttle: 201 opens the window, then 200 with the window job; GET /jobs/:id shows the key', async () => {
      const body = { kind: 'echo', payload: { n: 1 }, throttle: { key: 'acct-7', windowMs: HOUR_MS } };
      const created = await post(body);
      assert.equal(created.statusCode, 201, created.body);
      assert.equal(jsonBody(created).throttleKey, 'acct-7');
      assert.equal(jsonBody(created).debounceKey, null);
      const again = await post({ ...body, payload: { n: 2 } });
      assert.equal(again.statusCode, 200);
      assert.equal(jsonBody(again).id, jsonBody(created).id);
      assert.deepEqual(jsonBody(again).payload, { n: 1 });
      assert.equal(again.headers.location, created.headers.location);
      const read = await t.app.inject({ method: 'GET', url: String(created.headers.location) });
      assert.equal(jsonBody(read).throttleKey, 'acct-7');
    });

    it('POST /jobs with debounce: 201 SCHEDULED, then 200 with the same job, its payload replaced and its start moved', async () => {
      const body = { kind: 'echo', payload: { n: 1 }, debounce: { key: 'doc-3', delayMs: 60_000 } };
      const created = await post(body);
      assert.equal(created.statusCode, 201, created.body);
      const first = jsonBody(created);
      assert.equal(first.status, 'SCHEDULED');
      assert.equal(first.debounceKey, 'doc-3');
      const again = await post({ ...body, payload: { n: 2 }, debounce: { key: 'doc-3', delayMs: 120_000 } });
      assert.equal(again.statusCode, 200);
      const second = jsonBody(again);
      assert.equal(second.id, first.id);
      assert.equal(second.status, 'SCHEDULED');
      assert.deepEqual(second.payload, { n: 2 });
      assert.ok(Date.parse(String(second.runAt)) > Date.parse(String(first.runAt)), 'run_at moved later');
    });

    it('POST /jobs/batch marks a throttled job found in its window and a debounced job replaced as not created', async () => {
      const jobs = [
        { kind: 'echo', throttle: { key: 'b', windowMs: HOUR_MS } },
        { kind: 'echo', debounce: { key: 'b', delayMs: 60_000 }, payload: { n: 1 } },
        { kind: 'echo', throttle: { key: 'b', windowMs: HOUR_MS } },
        { kind: 'echo', debounce: { key: 'b', delayMs: 60_000 }, payload: { n: 2 } },
      ];
      const first = await t.app.inject({ method: 'POST', url: '/jobs/batch', payload: { jobs } });
      assert.equal(first.statusCode, 201, first.body);
      const views = jsonBody(first).jobs as Array<{ id: number; created: boolean; payload: unknown }>;
      assert.deepEqual(
        views.map((v) => v.created),
        [true, true, false, false],
      );
      assert.equal(views[2]?.id, views[0]?.id);
      assert.equal(views[3]?.id, views[1]?.id);
      assert.deepEqual(views[3]?.payload, { n: 2 });
      const again = await t.app.inject({ method: 'POST', url: '/jobs/batch', payload: { jobs } });
      assert.equal(again.statusCode, 200, 'nothing created');
    });

    const refusals: Array<[string, unknown, RegExp]> = [
      [
        'a window of 0 ms',
        { kind: 'echo', throttle: { key: 'k', windowMs: 0 } },
        /^\/throttle\/windowMs must be a whole number of ms from 1 to 31536000000 \(365 days\) \(got 0\)$/,
      ],
      [
        'a window past 365 days',
        { kind: 'echo', throttle: { key: 'k', windowMs: 31_536_000_001 } },
        /^\/throttle\/windowMs must be a whole number of ms from 1 to 31536000000/,
      ],
      [
        'a fractional delay',
        { kind: 'echo', debounce: { key: 'k', delayMs: 1.5 } },
        /^\/debounce\/delayMs must be a whole number of ms from 1 to 31536000000 \(365 days\) \(got 1.5\)$/,
      ],
      [
        'an empty key',
        { kind: 'echo', throttle: { key: '', windowMs: 1000 } },
        /^\/throttle\/key must be a string of 1 to 200 characters \(got ""\)$/,
      ],
      [
        'a key past 200 characters',
        { kind: 'echo', debounce: { key: 'x'.repeat(201), delayMs: 1 } },
        /^\/debounce\/key must be a string of 1 to 200/,
      ],
      [
        'a missing key',
        { kind: 'echo', throttle: { windowMs: 1000 } },
        /^\/throttle\/key is required: a string of 1 to 200 characters$/,
      ],
      [
        'throttle as text',
        { kind: 'echo', throttle: 'k/1000' },
        /^\/throttle must be an object \{ key, windowMs \} \(got "k\/1000"\)$/,
      ],
      [
        'an unknown field',
        { kind: 'echo', debounce: { key: 'k', delayMs: 5, windowMs: 5 } },
        /^\/debounce\/windowMs is not a field of debounce \(fields: key, delayMs\)$/,
      ],
      [
        'debounce with delayMs',
        { kind: 'echo', delayMs: 5, debounce: { key: 'k', delayMs: 5 } },
        /\/debounce and \/delayMs cannot both be given/,
      ],
      [
        'debounce with runAt',
        { kind: 'echo', runAt: '2030-01-01T00:00:00Z', debounce: { key: 'k', delayMs: 5 } },
        /\/debounce and \/runAt cannot both be given/,
      ],
      [
        'debounce with idempotencyKey',
        { kind: 'echo', idempotencyKey: 'i', debounce: { key: 'k', delayMs: 5 } },
        /\/debounce and \/idempotencyKey cannot both be given/,
      ],
      [
        'debounce with throttle',
        { kind: 'echo', throttle: { key: 'k', windowMs: 5 }, debounce: { key: 'k', delayMs: 5 } },
        /\/debounce and \/throttle cannot both be given: debounce keeps the last enqueue, throttle the first; pick one/,
      ],
      [
        'throttle with idempotencyKey',
        { kind: 'echo', idempotencyKey: 'i', throttle: { key: 'k', windowMs: 5 } },
        /\/throttle and \/idempotencyKey cannot both be given/,
      ],
    ];
    for (const [what, body, message] of refusals) {
      it(`POST /jobs refuses ${what}: 400 INVALID_REQUEST naming the field, and writes nothing`, async () => {
        const before = await total();
        const response = await post(body);
        assert.equal(response.statusCode, 400, response.body);
        assert.equal(jsonBody(response).code, 'INVALID_REQUEST');
        assert.match(String(jsonBody(response).message), message);
        assert.equal(await total(), before);
      });
    }

    it('POST /jobs/batch names the job at fault by its pointer and writes none of the batch', async () => {
      const before = await total();
      const jobs = [
        { kind: 'echo', throttle: { key: 'ok', windowMs: 1000 } },
        { kind: 'echo', throttle: { key: 'k', windowMs: -1 } },
      ];
      const response = await t.app.inject({ method: 'POST', url: '/jobs/batch', payload: { jobs } });
      assert.equal(response.statusCode, 400, response.body);
      assert.match(
        String(jsonBody(response).message),
        /\/jobs\/1\/throttle\/windowMs must be a whole number of ms from 1/,
      );
      assert.equal(await total(), before);
    });
  });
}

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '@nudge/test-databases';
import { createTestApp, jsonBody, type TestApp } from './test-app.js';

/** An emoji: one character (code point), two UTF-16 units. */
const EMOJI = '\u{1F600}';

for (const dialect of DIALECTS) {
  describe(`input that would be changed or misrouted is refused, naming the field: ${dialect}`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect);
    });
    after(async () => t.close());

    const post = (payload: object, url = '/jobs') => t.app.inject({ method: 'POST', url, payload });
    const total = async (): Promise<number> =>
      Object.values(await t.store.countByStatus()).reduce((sum, n) => sum + n, 0);
    /** Asserts a 400 whose message names `field` (a JSON Pointer or `querystring/…`), and that nothing was written. */
    const refused = async (
      response: Awaited<ReturnType<typeof post>>,
      code: string,
      field: RegExp,
      before: number,
    ) => {
      assert.equal(response.statusCode, 400, response.body);
      const body = jsonBody(response);
      assert.equal(body.code, code);
      assert.match(String(body.message), field);
      assert.equal(await total(), before, 'nothing was written');
      return body;
    };

    it('queue names . and .. are refused wherever a queue name is taken', async () => {
      const before = await total();
      for (const queue of ['.', '..']) {
        await refused(
          await post({ kind: 'echo', queue }),
          'INVALID_REQUEST',
          /^\/queue must be a queue name: .*other than '\.' and '\.\.'/,
          before,
        );
        const batch = await refused(
          await post({ jobs: [{ kind: 'echo' }, { kind: 'echo', queue }] }, '/jobs/batch'),
          'INVALID_BATCH',
          /^1 of 2 jobs are invalid, so none was written: \/jobs\/1\/queue must be a queue name/,
          before,
        );
        assert.deepEqual(
          (batch.errors as Array<{ index: number }>).map((e) => e.index),
          [1],
          'only the bad job is listed',
        );
        const list = await t.app.inject({ method: 'GET', url: `/jobs?queue=${queue}` });
        await refused(list, 'INVALID_REQUEST', /^querystring\/queue must be a queue name/, before);
        for (const url of ['/jobs/cancel', '/jobs/retry']) {
          const filter = url === '/jobs/retry' ? { status: 'FAILED', queue } : { queue };
          await refused(await post(filter, url), 'INVALID_REQUEST', /^\/queue must be a queue name/, before);
        }
      }
    });

    it('onDependencyFailure without dependsOn, and a dependency listed twice, are refused; in a batch only the bad job is listed', async () => {
      const dependency = Number(jsonBody(await post({ kind: 'echo' })).id);
      const before = await total();
      await refused(
        await post({ kind: 'echo', onDependencyFailure: 'run' }),
        'INVALID_REQUEST',
        /^\/onDependencyFailure is given without dependsOn/,
        before,
      );
      await refused(
        await post({ kind: 'echo', dependsOn: [dependency, dependency, dependency] }),
        'INVALID_REQUEST',
        new RegExp(`^/dependsOn/1 repeats entry 0 \\(${dependency}\\): list each dependency once$`),
        before,
      );
      const batch = await refused(
        await post(
          {
            jobs: [
              { kind: 'echo' },
              { kind: 'echo', onDependencyFailure: 'cancel' },
              { kind: 'echo', dependsOn: [{ index: 0 }] },
              { kind: 'echo', dependsOn: [{ index: 0 }, { index: 0 }] },
            ],
          },
          '/jobs/batch',
        ),
        'INVALID_BATCH',
        /\/jobs\/1\/onDependencyFailure is given without dependsOn.*\/jobs\/3\/dependsOn\/1 repeats entry 0/,
        before,
      );
      assert.deepEqual(
        (batch.errors as Array<{ index: number }>).map((e) => e.index),
        [1, 3],
      );
    });

    it('a keyed repeat with other dependsOn answers 409 IDEMPOTENCY_KEY_CONFLICT; the same dependsOn (in any order) answers the job', async () => {
      const a = Number(jsonBody(await post({ kind: 'echo' })).id);
      const b = Number(jsonBody(await post({ kind: 'echo' })).id);
      const c = Number(jsonBody(await post({ kind: 'echo' })).id);
      const created = await post({ kind: 'echo', idempotencyKey: 'flow-1', dependsOn: [a, b] });
      assert.equal(created.statusCode, 201, created.body);
      const id = Number(jsonBody(created).id);
      const same = await post({ kind: 'echo', idempotencyKey: 'flow-1', dependsOn: [b, a] });
      assert.equal(same.statusCode, 200, same.body);
      assert.equal(jsonBody(same).id, id);
      const before = await total();
      for (const dependsOn of [[a], [a, b, c], [a, c], undefined]) {
        const conflict = await post({ kind: 'echo', idempotencyKey: 'flow-1', dependsOn });
        assert.equal(conflict.statusCode, 409, conflict.body);
        assert.equal(jsonBody(conflict).code, 'IDEMPOTENCY_KEY_CONFLICT');
        assert.match(
          String(jsonBody(conflict).message),
          new RegExp(
            `^/dependsOn: job ${id} of kind echo has idempotency key "flow-1" and depends on \\[${a}, ${b}\\], not `,
          ),
        );
      }
      const batch = await post(
        {
          jobs: [
            { kind: 'echo', payload: { other: true } },
            { kind: 'echo', idempotencyKey: 'flow-1', dependsOn: [{ index: 0 }] },
          ],
        },
        '/jobs/batch',
      );
      assert.equal(batch.statusCode, 409, batch.body);
      assert.match(String(jsonBody(batch).message), /^\/jobs\/1\/dependsOn: job /);
      assert.equal(await total(), before, 'a refused repeat writes nothing, nor does its batch');
      const plain = Number(jsonBody(await post({ kind: 'echo', idempotencyKey: 'plain-1' })).id);
      const withDependency = await post({ kind: 'echo', idempotencyKey: 'plain-1', dependsOn: [a] });
      assert.equal(withDependency.statusCode, 409, 'a repeat that adds dependencies conflicts too');
      assert.match(
        String(jsonBody(withDependency).message),
        new RegExp(`job ${plain} .* depends on none, not \\[${a}\\]`),
      );
    });

    it('lengths count characters: 101 emoji fit a 200-character limit, 201 are refused', async () => {
      const keyed = await post({
        kind: 'echo',
        idempotencyKey: EMOJI.repeat(101),
        concurrencyKey: EMOJI.repeat(200),
      });
      assert.equal(keyed.statusCode, 201, keyed.body);
      assert.equal(jsonBody(keyed).idempotencyKey, EMOJI.repeat(101));
      const throttled = await post({ kind: 'echo', throttle: { key: EMOJI.repeat(200), windowMs: 1000 } });
      assert.equal(throttled.statusCode, 201, throttled.body);
      const before = await total();
      await refused(
        await post({ kind: 'echo', idempotencyKey: EMOJI.repeat(201) }),
        'INVALID_REQUEST',
        /^\/idempotencyKey must be a string of 1 to 200 characters/,
        before,
      );
      await refused(
        await post({ kind: 'echo', debounce: { key: EMOJI.repeat(201), delayMs: 1000 } }),
        'INVALID_REQUEST',
        /^\/debounce\/key must be a string of 1 to 200 characters/,
        before,
      );
      const listed = await t.app.inject({
        method: 'GET',
        url: `/jobs?kind=${encodeURIComponent(EMOJI.repeat(200))}`,
      });
      assert.equal(listed.statusCode, 200, listed.body);
      const tooLong = await t.app.inject({
        method: 'GET',
        url: `/jobs?kind=${encodeURIComponent(EMOJI.repeat(201))}`,
      });
      await refused(
        tooLong,
        'INVALID_REQUEST',
        /^querystring\/kind must be a string of 1 to 200 characters/,
        before,
      );
      const cancelled = await post({ kind: EMOJI.repeat(200) }, '/jobs/cancel');
      assert.equal(cancelled.statusCode, 200, cancelled.body);
      await refused(
        await post({ kind: EMOJI.repeat(201) }, '/jobs/cancel'),
        'INVALID_REQUEST',
        /^\/kind must be a string of 1 to 200 characters/,
        before,
      );
    });
  });
}

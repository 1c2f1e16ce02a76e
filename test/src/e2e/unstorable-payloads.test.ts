// Hostile payloads through the real server on both dialects: deep nesting, U+0000, lone
// surrogates, non-finite numbers, prototype keys, wrong content types. Never a 5xx; a refused
// request leaves the table as it was; an accepted payload comes back equal.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { findUnstorableJson } from '@nudge/core';
import { startServer, type RunningServer } from '@nudge/server';
import type { Store } from '@nudge/store';
import {
  createMigratedDatabase,
  DIALECTS,
  FIXTURE_HANDLERS,
  openStore,
  type TestDatabase,
} from '../helpers/index.js';

interface Answer {
  readonly status: number;
  readonly body: {
    code?: string;
    message?: string;
    id?: number;
    payload?: unknown;
    jobs?: Array<{ id: number }>;
    errors?: Array<{ index: number; code: string }>;
  };
}

async function post(
  url: string,
  body: string,
  contentType = 'application/json',
  route = '/jobs',
): Promise<Answer> {
  const response = await fetch(`${url}${route}`, {
    method: 'POST',
    headers: { 'content-type': contentType },
    body,
  });
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

/** Raw bodies and what each must get: status, code, and text the message must hold. */
const CASES: ReadonlyArray<{
  name: string;
  body: string;
  type?: string;
  status: number;
  code: string;
  message: RegExp;
}> = [
  {
    name: 'nesting 5,000 levels deep',
    body: `{"kind":"noop","payload":${nested(5000)}}`,
    status: 400,
    code: 'PAYLOAD_TOO_DEEP',
    message: /^\/payload(\/0){100}: nesting deeper than 100 levels$/,
  },
  {
    name: 'a string holding U+0000',
    body: '{"kind":"noop","payload":{"s":"a\\u0000b"}}',
    status: 400,
    code: 'PAYLOAD_UNSTORABLE',
    message: /^\/payload\/s: a string contains U\+0000, which PostgreSQL cannot store$/,
  },
  {
    name: 'a lone surrogate',
    body: '{"kind":"noop","payload":["ok","\\ud800"]}',
    status: 400,
    code: 'PAYLOAD_UNSTORABLE',
    message: /^\/payload\/1: a string contains a lone UTF-16 surrogate \(\\ud800\)/,
  },
  {
    name: 'a key holding U+0000',
    body: '{"kind":"noop","payload":{"a\\u0000":1}}',
    status: 400,
    code: 'PAYLOAD_UNSTORABLE',
    message: /^\/payload\/a.: a key contains U\+0000/,
  },
  {
    name: 'a number beyond a double',
    body: '{"kind":"noop","payload":{"n":1e999}}',
    status: 400,
    code: 'PAYLOAD_UNSTORABLE',
    message: /^\/payload\/n: Infinity is not a finite number$/,
  },
  {
    name: 'a prototype key',
    body: '{"kind":"noop","payload":{"__proto__":{"admin":true}}}',
    status: 400,
    code: 'INVALID_JSON',
    message: /"__proto__"/,
  },
  {
    name: 'a form body',
    body: 'kind=noop',
    type: 'application/x-www-form-urlencoded',
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: /application\/json/,
  },
];

/** JSON text for numbers a double cannot hold exactly, or at all. */
const numberText = fc.constantFrom(
  '1e999',
  '-1e999',
  '123456789012345678901234567890',
  '1e-400',
  '-0',
  '5e-324',
);

function isNumberText(value: unknown): value is { text: string } {
  return (
    typeof value === 'object' &&
    value !== null &&
    Object.keys(value).length === 1 &&
    typeof (value as { text?: unknown }).text === 'string' &&
    (value as { text: string }).text.startsWith('numeric:')
  );
}

/**
 * Whether `value` holds a key the server refuses for safety (`400 INVALID_JSON`): `__proto__`, or
 * `constructor` holding an object with a `prototype` key. fast-check generates such keys.
 */
function poisonsPrototype(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some(poisonsPrototype);
  const record = value as Record<string, unknown>;
  if (Object.hasOwn(record, '__proto__')) return true;
  const ctor = Object.hasOwn(record, 'constructor') ? record.constructor : undefined;
  if (typeof ctor === 'object' && ctor !== null && Object.hasOwn(ctor, 'prototype')) return true;
  return Object.values(record).some(poisonsPrototype);
}

/** Strings made of the characters that dialects disagree on, and ordinary ones. */
const hostileChar = fc.oneof(
  fc.constantFrom('\u0000', '\ud800', '\udfff', '😀', '"', '\\', '~', '/'),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
);

for (const dialect of DIALECTS) {
  describe(`hostile payloads through POST /jobs and POST /jobs/batch: ${dialect}`, () => {
    let db: TestDatabase;
    let store: Store;
    let server: RunningServer;
    const rows = async (): Promise<number> =>
      Object.values(await store.countByStatus()).reduce((sum, n) => sum + n, 0);

    before(async () => {
      db = await createMigratedDatabase(dialect);
      store = await openStore(db);
      server = await startServer({
        databaseUrl: db.url,
        handlers: fileURLToPath(FIXTURE_HANDLERS),
        port: 0,
        threads: 1,
        logLevel: 'silent',
      });
    });
    after(async () => {
      await server.close();
      await store.close();
      await db.drop();
    });

    for (const c of CASES) {
      it(`${c.name}: ${c.status} ${c.code}, nothing written`, async () => {
        const before = await rows();
        const answer = await post(server.url, c.body, c.type);
        assert.equal(answer.status, c.status, JSON.stringify(answer.body).slice(0, 300));
        assert.equal(answer.body.code, c.code);
        assert.match(answer.body.message ?? '', c.message);
        assert.equal(await rows(), before);
      });
    }

    it('accepts nesting of exactly 100 levels and returns it equal', async () => {
      const payload = JSON.parse(nested(100)) as unknown;
      const answer = await post(server.url, JSON.stringify({ kind: 'noop', payload }));
      assert.equal(answer.status, 201);
      assert.deepEqual((await store.getJob(answer.body.id ?? 0))?.payload, payload);
    });

    it('property: any JSON body gets 201 with the payload stored equal, or 400 with nothing written', async () => {
      const payloads = fc.oneof(
        fc.jsonValue({ maxDepth: 4, stringUnit: hostileChar }),
        numberText.map((text) => ({ text: `numeric:${text}` })),
      );
      await fc.assert(
        fc.asyncProperty(payloads, async (generated) => {
          // A number as raw text: JSON.stringify cannot write 1e999.
          const text = isNumberText(generated)
            ? generated.text.slice('numeric:'.length)
            : JSON.stringify(generated);
          const sent = JSON.parse(text) as unknown;
          // Stored as JSON: what JSON.stringify keeps of it (-0 is 0).
          const asJson = JSON.parse(JSON.stringify(sent) ?? 'null') as unknown;
          const before = await rows();
          const answer = await post(server.url, `{"kind":"noop","payload":${text}}`);
          assert.ok(answer.status < 500, `${answer.status}: ${JSON.stringify(answer.body)}`);
          const problem = findUnstorableJson(sent);
          if (poisonsPrototype(sent)) {
            assert.equal(answer.body.code, 'INVALID_JSON', 'a prototype key is refused');
            assert.equal(await rows(), before, 'a refused request wrote nothing');
          } else if (problem) {
            assert.equal(answer.status, 400, `refused: ${problem.reason}`);
            assert.equal(await rows(), before, 'a refused request wrote nothing');
          } else {
            assert.equal(answer.status, 201, JSON.stringify(answer.body));
            assert.deepEqual((await store.getJob(answer.body.id ?? 0))?.payload, asJson);
          }
        }),
        { numRuns: 150 },
      );
    });

    it('a batch holding a job nested 5,000 levels deep: 400 INVALID_BATCH naming it, nothing written', async () => {
      const before = await rows();
      const body = `{"jobs":[{"kind":"noop"},${nested(5000)},{"kind":"noop","payload":${nested(5000)}}]}`;
      const answer = await post(server.url, body, undefined, '/jobs/batch');
      assert.equal(answer.status, 400, JSON.stringify(answer.body).slice(0, 300));
      assert.equal(answer.body.code, 'INVALID_BATCH');
      assert.deepEqual(
        answer.body.errors?.map((e) => [e.index, e.code]),
        [
          [1, 'INVALID_REQUEST'],
          [2, 'PAYLOAD_TOO_DEEP'],
        ],
      );
      assert.equal(await rows(), before);
    });

    it('property: a batch is written whole with every payload equal, or refused whole naming each bad job', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.jsonValue({ maxDepth: 3, stringUnit: hostileChar }), { minLength: 1, maxLength: 6 }),
          async (payloads) => {
            const before = await rows();
            const body = JSON.stringify({ jobs: payloads.map((payload) => ({ kind: 'noop', payload })) });
            const answer = await post(server.url, body, undefined, '/jobs/batch');
            assert.ok(answer.status < 500, `${answer.status}: ${JSON.stringify(answer.body)}`);
            const sent = payloads.map((p) => JSON.parse(JSON.stringify(p)) as unknown);
            const bad = sent.flatMap((p, index) => (findUnstorableJson(p) ? [index] : []));
            if (sent.some(poisonsPrototype)) {
              assert.equal(answer.body.code, 'INVALID_JSON', 'a prototype key refuses the whole body');
              assert.equal(await rows(), before, 'a refused batch wrote nothing');
            } else if (bad.length > 0) {
              assert.equal(answer.status, 400);
              assert.deepEqual(
                answer.body.errors?.map((e) => e.index),
                bad,
              );
              assert.equal(await rows(), before, 'a refused batch wrote nothing');
            } else {
              assert.equal(answer.status, 201, JSON.stringify(answer.body));
              const stored = await Promise.all((answer.body.jobs ?? []).map((job) => store.getJob(job.id)));
              assert.deepEqual(
                stored.map((job) => job?.payload),
                sent,
              );
            }
          },
        ),
        { numRuns: 60 },
      );
    });
  });
}

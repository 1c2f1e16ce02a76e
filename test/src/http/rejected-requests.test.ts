import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { InjectOptions } from 'fastify';
import { DIALECTS } from '@nudge/test-databases';
import { createTestApp, jsonBody, type TestApp } from './test-app.js';

const json = { 'content-type': 'application/json' };

interface Case {
  readonly name: string;
  readonly request: InjectOptions;
  readonly status: number;
  readonly code: string;
  /** Text the message must contain: the field at fault and what to fix. */
  readonly message: RegExp;
}

const BODY_LIMIT_BYTES = 4096;

const CASES: readonly Case[] = [
  {
    name: 'missing kind',
    request: { method: 'POST', url: '/jobs', payload: { payload: {} } },
    status: 400,
    code: 'INVALID_REQUEST',
    message: /^\/kind is required: a string of 1 to 200 characters$/,
  },
  {
    name: 'empty kind',
    request: { method: 'POST', url: '/jobs', payload: { kind: '' } },
    status: 400,
    code: 'INVALID_REQUEST',
    message: /^\/kind must be a string of 1 to 200 characters \(got ""\)$/,
  },
  {
    name: 'kind over 200 characters',
    request: { method: 'POST', url: '/jobs', payload: { kind: 'k'.repeat(201) } },
    status: 400,
    code: 'INVALID_REQUEST',
    message: /^\/kind must be a string of 1 to 200 characters \(got "k/,
  },
  {
    name: 'kind of the wrong type',
    request: { method: 'POST', url: '/jobs', payload: { kind: 5 } },
    status: 400,
    code: 'INVALID_REQUEST',
    message: /^\/kind must be a string of 1 to 200 characters \(got 5\)$/,
  },
  {
    name: 'priority as a string (no coercion)',
    request: { method: 'POST', url: '/jobs', payload: { kind: 'echo', priority: '3' } },
    status: 400,
    code: 'INVALID_REQUEST',
    message: /^\/priority must be an integer from -1000 to 1000 \(got "3"\)$/,
  },
  {
    name: 'fractional priority',
    request: { method: 'POST', url: '/jobs', payload: { kind: 'echo', priority: 1.5 } },
    status: 400,
    code: 'INVALID_REQUEST',
    message: /^\/priority must be an integer from -1000 to 1000 \(got 1.5\)$/,
  },
  {
    name: 'priority out of range',
    request: { method: 'POST', url: '/jobs', payload: { kind: 'echo', priority: 1001 } },
    status: 400,
    code: 'INVALID_REQUEST',
    message: /^\/priority must be an integer from -1000 to 1000 \(got 1001\)$/,
  },
  {
    name: 'maxAttempts 0',
    request: { method: 'POST', url: '/jobs', payload: { kind: 'echo', maxAttempts: 0 } },
    status: 400,
    code: 'INVALID_REQUEST',
    message: /^\/maxAttempts must be an integer from 1 to 1000 \(got 0\)$/,
  },
  {
    name: 'maxAttempts over 1000',
    request: { method: 'POST', url: '/jobs', payload: { kind: 'echo', maxAttempts: 1001 } },
    status: 400,
    code: 'INVALID_REQUEST',
    message: /^\/maxAttempts must be an integer from 1 to 1000 \(got 1001\)$/,
  },
  {
    name: 'runAt that is not a date',
    request: { method: 'POST', url: '/jobs', payload: { kind: 'echo', runAt: 'tomorrow' } },
    status: 400,
    code: 'INVALID_REQUEST',
    message:
      /^\/runAt must be a date-time from 1970 to 9999 with a time zone, such as 2030-01-01T09:00:00Z \(got "tomorrow"\)$/,
  },
  {
    name: 'runAt without a time zone',
    request: { method: 'POST', url: '/jobs', payload: { kind: 'echo', runAt: '2030-01-01T09:00:00' } },
    status: 400,
    code: 'INVALID_REQUEST',
    message: /^\/runAt must be a date-time from 1970 to 9999/,
  },
  {
    name: 'runAt on a day that does not exist',
    request: { method: 'POST', url: '/jobs', payload: { kind: 'echo', runAt: '2030-02-30T09:00:00Z' } },
    status: 400,
    code: 'INVALID_REQUEST',
    message: /^\/runAt must be a date-time from 1970 to 9999/,
  },
  {
    name: 'runAt as a number',
    request: { method: 'POST', url: '/jobs', payload: { kind: 'echo', runAt: 1_700_000_000_000 } },
    status: 400,
    code: 'INVALID_REQUEST',
    message: /^\/runAt must be a date-time from 1970 to 9999/,
  },
  {
    name: 'delayMs with runAt',
    request: {
      method: 'POST',
      url: '/jobs',
      payload: { kind: 'echo', delayMs: 5, runAt: '2030-01-01T00:00:00Z' },
    },
    status: 400,
    code: 'INVALID_REQUEST',
    message: /^\/runAt and \/delayMs cannot both be given: each sets the start, pick one$/,
  },
  {
    name: 'a negative delayMs',
    request: { method: 'POST', url: '/jobs', payload: { kind: 'echo', delayMs: -1 } },
    status: 400,
    code: 'INVALID_REQUEST',
    message: /^\/delayMs must be a whole number of ms from 0 to 31536000000 \(365 days\) \(got -1\)$/,
  },
  {
    name: 'an extra property',
    request: { method: 'POST', url: '/jobs', payload: { kind: 'echo', delay: 5 } },
    status: 400,
    code: 'INVALID_REQUEST',
    message:
      /^\/delay is not a job field \(fields: kind, payload, queue, priority, runAt, delayMs, maxAttempts, idempotencyKey, concurrencyKey, dependsOn, onDependencyFailure, throttle, debounce\)$/,
  },
  {
    name: 'a body that is an array',
    request: { method: 'POST', url: '/jobs', payload: '[{"kind":"echo"}]', headers: json },
    status: 400,
    code: 'INVALID_REQUEST',
    message: /^the job must be a JSON object with a kind/,
  },
  {
    name: 'no body at all',
    request: { method: 'POST', url: '/jobs' },
    status: 400,
    code: 'INVALID_REQUEST',
    message: /^the job must be a JSON object with a kind/,
  },
  {
    name: 'several problems at once',
    request: { method: 'POST', url: '/jobs', payload: { priority: 'high', maxAttempts: 0 } },
    status: 400,
    code: 'INVALID_REQUEST',
    message:
      /^\/kind is required: .*; \/priority must be an integer from -1000 to 1000 \(got "high"\); \/maxAttempts must be an integer from 1 to 1000 \(got 0\)$/,
  },
  {
    name: 'an unknown kind',
    request: { method: 'POST', url: '/jobs', payload: { kind: 'sendSms' } },
    status: 400,
    code: 'UNKNOWN_KIND',
    message: /unknown job kind "sendSms".*\(known kinds: echo, sendEmail\)/,
  },
  {
    name: 'malformed JSON',
    request: { method: 'POST', url: '/jobs', payload: '{"kind": "echo",', headers: json },
    status: 400,
    code: 'INVALID_JSON',
    message: /not valid JSON/,
  },
  {
    name: 'an empty body declared as JSON',
    request: { method: 'POST', url: '/jobs', payload: '', headers: json },
    status: 400,
    code: 'INVALID_JSON',
    message: /body is empty/,
  },
  {
    name: 'a non-numeric id',
    request: { method: 'GET', url: '/jobs/abc' },
    status: 400,
    code: 'INVALID_REQUEST',
    message: /^params\/id must be a positive whole number such as 42 \(got "abc"\)$/,
  },
  {
    name: 'a zero id',
    request: { method: 'GET', url: '/jobs/0' },
    status: 400,
    code: 'INVALID_REQUEST',
    message: /params\/id must be a positive whole number/,
  },
  {
    name: 'a fractional id',
    request: { method: 'GET', url: '/jobs/1.5' },
    status: 400,
    code: 'INVALID_REQUEST',
    message: /params\/id must be a positive whole number/,
  },
  {
    name: 'a body over the limit',
    request: {
      method: 'POST',
      url: '/jobs',
      payload: { kind: 'echo', payload: { blob: 'x'.repeat(BODY_LIMIT_BYTES) } },
    },
    status: 413,
    code: 'BODY_TOO_LARGE',
    message: new RegExp(`larger than the limit of ${BODY_LIMIT_BYTES} bytes`),
  },
  {
    name: 'a form body',
    request: {
      method: 'POST',
      url: '/jobs',
      payload: 'kind=echo',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    },
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: /Content-Type: application\/json/,
  },
  {
    name: 'a text body',
    request: {
      method: 'POST',
      url: '/jobs',
      payload: '{"kind":"echo"}',
      headers: { 'content-type': 'text/plain' },
    },
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: /Content-Type: application\/json/,
  },
  {
    name: 'an unknown route',
    request: { method: 'GET', url: '/workers?x=1' },
    status: 404,
    code: 'ROUTE_NOT_FOUND',
    message: /^no route matches GET \/workers \(routes: .*POST \/jobs.*\)$/,
  },
  {
    name: 'a known path with the wrong method',
    request: { method: 'DELETE', url: '/jobs/1' },
    status: 404,
    code: 'ROUTE_NOT_FOUND',
    message: /no route matches DELETE \/jobs\/1/,
  },
];

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  404: 'Not Found',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
};

for (const dialect of DIALECTS) {
  describe(`rejected requests: ${dialect}`, () => {
    let t: TestApp;
    let lastId: number;
    before(async () => {
      t = await createTestApp(dialect, { bodyLimitBytes: BODY_LIMIT_BYTES });
      lastId = (await t.store.enqueue({ kind: 'echo' })).id;
    });
    after(async () => t.close());

    for (const c of CASES) {
      it(`${c.name}: ${c.status} ${c.code}, nothing written, no claim requested`, async () => {
        const claims = t.claimRequests();
        const response = await t.app.inject(c.request);
        assert.equal(response.statusCode, c.status, response.body);
        assert.match(String(response.headers['content-type']), /^application\/json/);
        const body = jsonBody(response);
        assert.deepEqual(Object.keys(body).sort(), ['code', 'error', 'message', 'statusCode']);
        assert.equal(body.statusCode, c.status);
        assert.equal(body.code, c.code);
        assert.equal(body.error, REASONS[c.status]);
        assert.match(String(body.message), c.message);
        assert.equal(await t.store.getJob(lastId + 1), undefined, 'a rejected request wrote a job');
        assert.equal(t.claimRequests(), claims);
      });
    }

    it('left the id sequence untouched: the next job takes the next id', async () => {
      const next = await t.store.enqueue({ kind: 'echo' });
      assert.equal(next.id, lastId + 1);
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`internal errors: ${dialect}`, () => {
    it('answers 500 INTERNAL_ERROR without revealing the cause', async () => {
      const t = await createTestApp(dialect);
      try {
        await t.store.close();
        const response = await t.app.inject({ method: 'POST', url: '/jobs', payload: { kind: 'echo' } });
        assert.equal(response.statusCode, 500);
        const body = jsonBody(response);
        assert.equal(body.code, 'INTERNAL_ERROR');
        assert.equal(body.error, 'Internal Server Error');
        assert.doesNotMatch(String(body.message), /database|sqlite|connection/i);
      } finally {
        await t.close();
      }
    });
  });
}

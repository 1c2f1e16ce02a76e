import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { routeAccess, type ApiKey, type ApiScope, type RouteAccess } from '@nudge/http';
import { DIALECTS } from '@nudge/test-databases';
import { createTestApp, jsonBody, type TestApp } from './test-app.js';

const ADMIN = 'admin-key-0123456789abcdef';
const PRODUCER = 'producer-key-0123456789ab';
const READER = 'reader-key-0123456789abcd';
const ENQUEUER = 'enqueuer-key-0123456789ab';
const KEYS: ApiKey[] = [
  { key: ADMIN, scopes: ['admin'] },
  { key: PRODUCER, scopes: ['enqueue', 'read'] },
  { key: READER, scopes: ['read'] },
  { key: ENQUEUER, scopes: ['enqueue'] },
];

/** A key that lacks `scope`: a reader for `enqueue`, an enqueuer for `read`, a producer for `admin`. */
const WITHOUT: Record<ApiScope, string> = { enqueue: READER, read: ENQUEUER, admin: PRODUCER };
/** A key with exactly `scope` (and no admin). */
const WITH: Record<ApiScope, string> = { enqueue: ENQUEUER, read: READER, admin: ADMIN };

/**
 * What each route needs, written out here rather than read from `routeAccess` (the function under
 * test): moving cancel, retry (one job or in bulk) or a queue's pause out of `admin` fails this test, and so does a
 * route added without a line here.
 */
const ACCESS: Readonly<Record<string, RouteAccess>> = {
  'GET /healthz': 'public',
  'GET /readyz': 'public',
  'POST /jobs': 'enqueue',
  'POST /jobs/batch': 'enqueue',
  'POST /jobs/:id/signals': 'enqueue',
  'POST /nudge': 'enqueue',
  'GET /jobs': 'read',
  'GET /jobs/:id': 'read',
  'GET /jobs/:id/dependents': 'read',
  'GET /jobs/:id/logs': 'read',
  'GET /activity': 'read',
  'GET /queues': 'read',
  'GET /instances': 'read',
  'GET /schedules': 'read',
  'GET /stats': 'read',
  'GET /metrics': 'read',
  'GET /docs': 'read',
  'GET /docs/json': 'read',
  'GET /docs/yaml': 'read',
  'GET /docs/static/*': 'read',
  'GET /docs/static/index.html': 'read',
  'GET /docs/static/swagger-initializer.js': 'read',
  'POST /jobs/:id/cancel': 'admin',
  'POST /jobs/:id/retry': 'admin',
  'POST /jobs/cancel': 'admin',
  'POST /jobs/retry': 'admin',
  'POST /queues/:name/pause': 'admin',
  'POST /queues/:name/resume': 'admin',
  'PATCH /queues/:name': 'admin',
};

/** The access {@link ACCESS} gives a route; a route missing there fails the test. */
function accessOf(route: { method: string; url: string }): RouteAccess {
  const access = ACCESS[`${route.method} ${route.url}`];
  assert.ok(access, `${route.method} ${route.url} has no line in ACCESS: say what it needs`);
  return access;
}

/** A request for a route pattern: params filled in, a valid body for the POST routes. */
function requestFor(method: string, url: string) {
  const path = url.replace(':id', '1').replace(':name', 'default').replace('*', 'index.html');
  const payload =
    url === '/jobs' && method === 'POST'
      ? { kind: 'echo' }
      : url === '/jobs/batch'
        ? { jobs: [{ kind: 'echo' }] }
        : url === '/jobs/retry'
          ? { status: 'FAILED', kind: 'nothing-here' }
          : url === '/jobs/cancel'
            ? { kind: 'nothing-here' }
            : url === '/jobs/:id/signals'
              ? { name: 'approve' }
              : undefined;
  return { method: method as 'GET' | 'POST', url: path, ...(payload ? { payload } : {}) };
}

for (const dialect of DIALECTS) {
  describe(`API keys: ${dialect}`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(dialect, { apiKeys: KEYS });
    });
    after(() => t.close());

    it('gives every route the access the table says, and the table lists every route', () => {
      assert.deepEqual(t.routes.map((r) => `${r.method} ${r.url}`).sort(), Object.keys(ACCESS).sort());
      for (const route of t.routes) {
        assert.equal(routeAccess(route.method, route.url), accessOf(route), `${route.method} ${route.url}`);
        if (route.method === 'GET') {
          assert.equal(routeAccess('HEAD', route.url), accessOf(route), `HEAD ${route.url}`);
        }
      }
      assert.equal(routeAccess('GET', undefined), 'read', 'an unknown route needs a read key');
    });

    it('answers 401 UNAUTHORIZED on every route but the probes without a key, writing nothing', async () => {
      for (const route of t.routes) {
        const response = await t.app.inject(requestFor(route.method, route.url));
        const label = `${route.method} ${route.url}`;
        if (accessOf(route) === 'public') {
          assert.equal(response.statusCode, 200, label);
          continue;
        }
        assert.equal(response.statusCode, 401, label);
        assert.equal(jsonBody(response).code, 'UNAUTHORIZED', label);
        assert.equal(response.headers['www-authenticate'], 'Bearer', label);
      }
      assert.equal((await t.store.countByStatus()).PENDING, 0);
      assert.equal(t.claimRequests(), 0);
    });

    it('answers 401 to an unknown key, a wrong scheme, and an unknown route', async () => {
      const cases = [
        { authorization: `Bearer ${ADMIN}x` },
        { authorization: `Bearer ${ADMIN.slice(0, -1)}` },
        { authorization: `Basic ${Buffer.from(`u:${ADMIN}`).toString('base64')}` },
        { authorization: ADMIN },
      ];
      for (const headers of cases) {
        const response = await t.app.inject({ method: 'GET', url: '/jobs', headers });
        assert.equal(response.statusCode, 401, headers.authorization);
        assert.equal(jsonBody(response).code, 'UNAUTHORIZED');
      }
      const wrongKey = await t.app.inject({
        method: 'GET',
        url: '/jobs',
        headers: { authorization: `Bearer ${ADMIN}x` },
      });
      // The library names its own option; the server passes the setting it fills it from.
      assert.equal(
        jsonBody(wrongKey).message,
        'the API key is not valid: send one of the keys configured in apiKeys',
      );
      const unknown = await t.app.inject({ method: 'GET', url: '/nowhere' });
      assert.equal(unknown.statusCode, 401, 'the route list of a 404 is not shown without a key');
    });

    it('answers 403 FORBIDDEN with a key that lacks the scope, naming the scope', async () => {
      for (const route of t.routes) {
        const access = accessOf(route);
        if (access === 'public') continue;
        const response = await t.app.inject({
          ...requestFor(route.method, route.url),
          headers: { authorization: `Bearer ${WITHOUT[access]}` },
        });
        const label = `${route.method} ${route.url}`;
        assert.equal(response.statusCode, 403, label);
        const body = jsonBody(response);
        assert.equal(body.code, 'FORBIDDEN', label);
        assert.match(String(body.message), new RegExp(`needs the "${access}" scope`), label);
      }
      assert.equal((await t.store.countByStatus()).PENDING, 0);
    });

    it('lets a key with the scope, and an admin key, through to the route', async () => {
      for (const key of ['scoped', 'admin'] as const) {
        for (const route of t.routes) {
          const access = accessOf(route);
          if (access === 'public') continue;
          const token = key === 'admin' ? ADMIN : WITH[access];
          const response = await t.app.inject({
            ...requestFor(route.method, route.url),
            headers: { authorization: `Bearer ${token}` },
          });
          const label = `${key} ${route.method} ${route.url}`;
          assert.notEqual(response.statusCode, 401, label);
          assert.notEqual(response.statusCode, 403, label);
          assert.ok(response.statusCode < 500, `${label}: ${response.statusCode} ${response.body}`);
        }
      }
      const created = await t.app.inject({
        method: 'POST',
        url: '/jobs',
        payload: { kind: 'echo' },
        headers: { authorization: `bearer ${ENQUEUER}` },
      });
      assert.equal(created.statusCode, 201);
    });

    it('keeps the body limit and the prototype-poisoning guard behind the key check', async () => {
      const small = await createTestApp(dialect, { apiKeys: KEYS, bodyLimitBytes: 64 });
      try {
        const auth = { authorization: `Bearer ${ENQUEUER}`, 'content-type': 'application/json' };
        const big = JSON.stringify({ kind: 'echo', payload: { text: 'x'.repeat(200) } });
        const tooLarge = await small.app.inject({
          method: 'POST',
          url: '/jobs',
          payload: big,
          headers: auth,
        });
        assert.equal(tooLarge.statusCode, 413);
        assert.equal(jsonBody(tooLarge).code, 'BODY_TOO_LARGE');
        const poisoned = await small.app.inject({
          method: 'POST',
          url: '/jobs',
          payload: '{"kind":"echo","__proto__":{"admin":true}}',
          headers: auth,
        });
        assert.equal(poisoned.statusCode, 400);
        assert.equal(jsonBody(poisoned).code, 'INVALID_JSON');
        const anonymous = await small.app.inject({
          method: 'POST',
          url: '/jobs',
          payload: big,
          headers: { 'content-type': 'application/json' },
        });
        assert.equal(anonymous.statusCode, 401, 'the key is checked before the body is read');
        assert.equal((await small.store.countByStatus()).PENDING, 0);
      } finally {
        await small.close();
      }
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`rate limit: ${dialect}`, () => {
    it('answers 429 RATE_LIMITED with Retry-After past the limit, per key; the probes stay open', async () => {
      const t = await createTestApp(dialect, { apiKeys: KEYS, rateLimitPerMinute: 3 });
      try {
        const get = (key: string) =>
          t.app.inject({ method: 'GET', url: '/queues', headers: { authorization: `Bearer ${key}` } });
        for (let i = 0; i < 3; i += 1) {
          const ok = await get(READER);
          assert.equal(ok.statusCode, 200);
          assert.equal(ok.headers['x-ratelimit-remaining'], String(2 - i));
        }
        const limited = await get(READER);
        assert.equal(limited.statusCode, 429);
        assert.equal(jsonBody(limited).code, 'RATE_LIMITED');
        const retryAfter = Number(limited.headers['retry-after']);
        assert.ok(
          retryAfter > 0 && retryAfter <= 60,
          `Retry-After ${String(limited.headers['retry-after'])}`,
        );
        assert.match(String(jsonBody(limited).message), /key-3 sent more than 3 requests this minute/);
        assert.doesNotMatch(limited.body, new RegExp(READER), 'the key itself is never echoed');
        assert.equal((await get(ADMIN)).statusCode, 200, 'another key has its own budget');
        for (let i = 0; i < 5; i += 1) {
          assert.equal((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
        }
      } finally {
        await t.close();
      }
    });

    it('counts requests refused for their key: per client address without a valid key, per key without the scope; 429 with Retry-After past the limit', async () => {
      const t = await createTestApp(dialect, { apiKeys: KEYS, rateLimitPerMinute: 3 });
      try {
        const get = (headers: Record<string, string>, remoteAddress = '127.0.0.1') =>
          t.app.inject({ method: 'GET', url: '/queues', headers, remoteAddress });
        const bad = { authorization: 'Bearer not-a-key-0123456789abcdef' };
        const codes = [
          (await get(bad)).statusCode,
          (await get({})).statusCode,
          (await get({ authorization: 'Basic abc' })).statusCode,
        ];
        assert.deepEqual(codes, [401, 401, 401]);
        const limited = await get(bad);
        assert.equal(limited.statusCode, 429, limited.body);
        assert.equal(jsonBody(limited).code, 'RATE_LIMITED');
        const retryAfter = Number(limited.headers['retry-after']);
        assert.ok(
          retryAfter > 0 && retryAfter <= 60,
          `Retry-After ${String(limited.headers['retry-after'])}`,
        );
        assert.match(String(jsonBody(limited).message), /the address 127\.0\.0\.1 sent more than 3 requests/);
        assert.equal((await get({})).statusCode, 429, 'a missing key counts as well');
        assert.equal((await get(bad, '10.0.0.7')).statusCode, 401, 'another address has its own budget');
        assert.equal(
          (await get({ authorization: `Bearer ${READER}` })).statusCode,
          200,
          'a valid key is not held up',
        );
        const forbidden: number[] = [];
        for (let i = 0; i < 4; i += 1)
          forbidden.push((await get({ authorization: `Bearer ${ENQUEUER}` })).statusCode);
        assert.deepEqual(forbidden, [403, 403, 403, 429], 'a key without the scope spends its own budget');
      } finally {
        await t.close();
      }
    });

    it('limits by client address when no key is configured', async () => {
      const t = await createTestApp(dialect, { rateLimitPerMinute: 2 });
      try {
        const codes: number[] = [];
        for (let i = 0; i < 3; i += 1)
          codes.push((await t.app.inject({ method: 'GET', url: '/queues' })).statusCode);
        assert.deepEqual(codes, [200, 200, 429]);
      } finally {
        await t.close();
      }
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`without keys: ${dialect}`, () => {
    it('leaves every route open', async () => {
      const t = await createTestApp(dialect);
      try {
        const response = await t.app.inject({ method: 'POST', url: '/jobs', payload: { kind: 'echo' } });
        assert.equal(response.statusCode, 201);
      } finally {
        await t.close();
      }
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`security headers: ${dialect}`, () => {
    it('serves the docs page under a CSP its scripts satisfy (no inline script), and nosniff everywhere', async () => {
      const t = await createTestApp(dialect, { apiKeys: KEYS });
      try {
        const page = await t.app.inject({
          method: 'GET',
          url: '/docs',
          headers: { authorization: `Bearer ${READER}` },
        });
        assert.equal(page.statusCode, 200);
        assert.match(String(page.headers['content-type']), /text\/html/);
        const csp = String(page.headers['content-security-policy']);
        assert.match(csp, /script-src 'self';/);
        assert.doesNotMatch(csp, /upgrade-insecure-requests/);
        const scripts = [...page.body.matchAll(/<script\b([^>]*)>([^<]*)<\/script>/g)];
        assert.ok(scripts.length >= 3, page.body);
        for (const [, attributes, text] of scripts) {
          assert.match(String(attributes), /src="[^"]+"/, 'every script is a file of its own');
          assert.equal(String(text).trim(), '');
        }
        const bundle = await t.app.inject({
          method: 'GET',
          url: '/docs/static/swagger-initializer.js',
          headers: { authorization: `Bearer ${READER}` },
        });
        assert.equal(bundle.statusCode, 200);
        assert.equal(page.headers['x-content-type-options'], 'nosniff');
        assert.equal(page.headers['x-frame-options'], 'SAMEORIGIN');
        const json = await t.app.inject({ method: 'GET', url: '/healthz' });
        assert.equal(json.headers['x-content-type-options'], 'nosniff');
        assert.match(String(json.headers['content-security-policy']), /default-src 'self'/);
      } finally {
        await t.close();
      }
    });
  });
}

import { fileURLToPath } from 'node:url';
import { ERROR_CODES, type ErrorCode } from '@nudge/core';
import { spawnServer, type ServerProcess } from '@nudge/server';
import type { Dialect } from '@nudge/store';
import { createTestDatabase, DIALECTS, openStore, rawQuery, type TestDatabase } from '@nudge/test-databases';
import type { ChaosSize, Scenario, ScenarioResult } from '../scenario.js';

// Scenario 16: abusive requests over real HTTP to a real server. The handler module is the typed
// fixture because its kinds declare payload schemas (`sendEmail`, `report`); `plain` has none.
const HANDLERS = fileURLToPath(new URL('../../fixtures/handlers-typed.js', import.meta.url));
const BODY_LIMIT_BYTES = 65_536;
/** The limit of the second server, the one the burst goes to. */
const RATE_LIMIT_PER_MINUTE = 10;
/** Requests of one burst: 10 past the limit. */
const BURST = RATE_LIMIT_PER_MINUTE + 10;
/** Rounds of the whole mix: the first one request at a time, the others concurrently. */
const ROUNDS: Record<ChaosSize, number> = { test: 1, ci: 10, full: 100 };
const CONCURRENCY = 16;

const ADMIN = 'chaos-admin-key-0123456789';
const READER = 'chaos-reader-key-0123456789';
const PRODUCER = 'chaos-producer-key-0123456789';
const bearer = (key: string) => `Bearer ${key}`;

/**
 * What the API documents for a case: `accepted` (any 2xx), an error code it may answer, or `no
 * answer` where the server may close the connection before the client has finished sending (a
 * chunked body past the limit: the client may see the reset before the `413`).
 */
type Expected = 'accepted' | ErrorCode | 'no answer';

/** One abusive request. Bodies are bytes (or a stream without a length) so nothing is re-encoded. */
interface AbuseCase {
  readonly name: string;
  readonly method?: 'GET' | 'POST';
  /** @defaultValue `/jobs` */
  readonly path?: string;
  readonly body?: string | Uint8Array | (() => ReadableStream<Uint8Array>);
  /** `null` sends none. @defaultValue `application/json` when there is a body */
  readonly contentType?: string | null;
  /** The `Authorization` header, `null` for none. @defaultValue the admin key */
  readonly auth?: string | null;
  readonly expect: readonly Expected[];
}

interface Answer {
  readonly status: number;
  readonly body: unknown;
  /** Why no answer came (a reset connection), when `status` is 0. */
  readonly failure?: string;
}

const SQL = [
  "'; DROP TABLE nudge_jobs; --",
  '1 OR 1=1',
  '" OR ""="',
  '1); DELETE FROM nudge_jobs; --',
  '?',
  '$1',
];
const UNICODE: Record<string, string> = {
  emoji: '👍🏽 👨‍👩‍👧‍👦 🏳️‍🌈',
  combining: 'e\u0301 Z\u0324\u0344a\u0310 \u00e9',
  rtl: 'שלום مرحبا \u202eevil\u202c',
  zeroWidth: 'a\u200bb\u200cc\u200dd\ufeffe',
  controls: '\u0001\u001f\u007f\u0085\u2028\u2029',
  nonCharacters: '\ufffe\uffff \u{10ffff} \u{1fffe} \ufffd',
};
const POLLUTION = '{"polluted":true,"queue":"polluted","priority":999,"maxAttempts":77}';

const json = JSON.stringify;
const enqueue = (name: string, job: object, expect: readonly Expected[]): AbuseCase => ({
  name,
  body: json(job),
  expect,
});
const raw = (name: string, body: string, expect: readonly Expected[], path = '/jobs'): AbuseCase => ({
  name,
  path,
  body,
  expect,
});
const nested = (levels: number) => `${'['.repeat(levels)}"x"${']'.repeat(levels)}`;
/** A `POST /jobs` body of exactly `bytes` bytes. */
const bodyOfBytes = (bytes: number) => {
  const frame = json({ kind: 'plain', payload: '' });
  return `${frame.slice(0, -2)}${'x'.repeat(bytes - frame.length)}"}`;
};

/** Every abusive request of one round on the server without a rate limit. */
function abuseCases(): AbuseCase[] {
  const accepted: Expected[] = ['accepted'];
  const jsonError: Expected[] = ['INVALID_JSON'];
  const invalid: Expected[] = ['INVALID_REQUEST'];
  const unknownKind: Expected[] = ['UNKNOWN_KIND'];
  const unstorable: Expected[] = ['PAYLOAD_UNSTORABLE'];
  const schema: Expected[] = ['PAYLOAD_INVALID'];
  const tooLarge: Expected[] = ['BODY_TOO_LARGE'];
  const unauthorized: Expected[] = ['UNAUTHORIZED'];
  const plain = json({ kind: 'plain', payload: { a: 1 } });
  const get = (name: string, path: string, expect: readonly Expected[]): AbuseCase => ({
    name,
    method: 'GET',
    path,
    expect,
  });
  const post = (name: string, path: string, expect: readonly Expected[]): AbuseCase => ({
    name,
    path,
    expect,
  });
  const invalidUtf8 = new Uint8Array([
    ...new TextEncoder().encode('{"kind":"plain","payload":{"s":"a'),
    ...[0xff, 0xfe, 0xc0, 0x80, 0xed, 0xa0, 0x80, 0xf4, 0x90, 0x80, 0x80],
    ...new TextEncoder().encode('b"}}'),
  ]);
  const emoji = '😀'.repeat(Math.ceil(BODY_LIMIT_BYTES / 4) + 10);
  return [
    // Oversized bodies.
    raw('body 1 byte over the limit', bodyOfBytes(BODY_LIMIT_BYTES + 1), tooLarge),
    raw('body exactly at the limit', bodyOfBytes(BODY_LIMIT_BYTES), accepted),
    raw('body 4x the limit', bodyOfBytes(BODY_LIMIT_BYTES * 4), tooLarge),
    raw(
      'batch over the limit',
      json({ jobs: [{ kind: 'plain', payload: 'x'.repeat(BODY_LIMIT_BYTES) }] }),
      tooLarge,
      '/jobs/batch',
    ),
    {
      name: '/nudge body over the limit',
      path: '/nudge',
      body: 'x'.repeat(BODY_LIMIT_BYTES + 1),
      contentType: 'text/plain',
      expect: tooLarge,
    },
    raw('invalid JSON over the limit', `{${'x'.repeat(BODY_LIMIT_BYTES)}`, tooLarge),
    raw(
      'emoji body: fewer UTF-16 units than the limit, more bytes',
      json({ kind: 'plain', payload: emoji }),
      tooLarge,
    ),
    {
      name: 'oversized body without a key',
      body: bodyOfBytes(BODY_LIMIT_BYTES * 2),
      auth: null,
      expect: unauthorized,
    },
    {
      name: 'chunked body over the limit, no Content-Length',
      body: () => chunkedBody(bodyOfBytes(BODY_LIMIT_BYTES * 2)),
      expect: ['BODY_TOO_LARGE', 'no answer'],
    },
    // Invalid JSON.
    raw('empty body', '', jsonError),
    raw('unterminated object', '{', jsonError),
    raw('single quotes', "{'kind':'plain'}", jsonError),
    raw('trailing comma', '{"kind":"plain",}', jsonError),
    raw('trailing garbage', '{"kind":"plain"} x', jsonError),
    raw('NaN payload', '{"kind":"plain","payload":NaN}', jsonError),
    raw('comment', '/* x */{"kind":"plain"}', jsonError),
    raw('raw tab inside a string', '{"kind":"plain","payload":"a\tb"}', jsonError),
    raw('byte order mark', '\ufeff{"kind":"plain"}', ['INVALID_JSON', 'accepted']),
    raw('body null', 'null', ['INVALID_REQUEST', 'INVALID_JSON']),
    raw('body is an array', '[{"kind":"plain"}]', invalid),
    raw('body is a string', '"plain"', invalid),
    raw('duplicate kind key (last wins)', '{"kind":"nope","kind":"plain"}', accepted),
    {
      name: 'invalid UTF-8 bytes in a string',
      body: invalidUtf8,
      expect: ['accepted', 'INVALID_JSON', 'INVALID_REQUEST'],
    },
    // Content types.
    { name: 'text/plain body', body: plain, contentType: 'text/plain', expect: ['UNSUPPORTED_MEDIA_TYPE'] },
    {
      name: 'form body',
      body: 'kind=plain',
      contentType: 'application/x-www-form-urlencoded',
      expect: ['UNSUPPORTED_MEDIA_TYPE'],
    },
    {
      name: 'no Content-Type',
      body: plain,
      contentType: null,
      expect: ['UNSUPPORTED_MEDIA_TYPE', 'INVALID_REQUEST'],
    },
    {
      name: 'JSON declared UTF-16',
      body: plain,
      contentType: 'application/json; charset=utf-16',
      expect: ['accepted', 'UNSUPPORTED_MEDIA_TYPE', 'INVALID_JSON'],
    },
    // Wrong types, missing or unknown fields.
    enqueue('no kind', { payload: {} }, invalid),
    enqueue('kind 5', { kind: 5 }, invalid),
    enqueue('kind null', { kind: null }, invalid),
    enqueue('kind array', { kind: ['plain'] }, invalid),
    enqueue('kind object', { kind: { name: 'plain' } }, invalid),
    enqueue('kind empty', { kind: '' }, invalid),
    enqueue('priority as a string', { kind: 'plain', priority: '1' }, invalid),
    enqueue('priority 1.5', { kind: 'plain', priority: 1.5 }, invalid),
    raw('priority 1e309', '{"kind":"plain","priority":1e309}', invalid),
    enqueue('priority -1001', { kind: 'plain', priority: -1001 }, invalid),
    enqueue('maxAttempts 0', { kind: 'plain', maxAttempts: 0 }, invalid),
    enqueue('runAt not a date', { kind: 'plain', runAt: 'yesterday' }, invalid),
    enqueue('runAt a number', { kind: 'plain', runAt: 0 }, invalid),
    enqueue('delayMs -1', { kind: 'plain', delayMs: -1 }, invalid),
    enqueue('delayMs with runAt', { kind: 'plain', delayMs: 5, runAt: '2030-01-01T00:00:00Z' }, invalid),
    enqueue('misspelt field', { kind: 'plain', payloads: {} }, invalid),
    enqueue('queue with a space', { kind: 'plain', queue: 'a b' }, invalid),
    enqueue('queue 101 characters', { kind: 'plain', queue: 'q'.repeat(101) }, invalid),
    enqueue('idempotencyKey empty', { kind: 'plain', idempotencyKey: '' }, invalid),
    enqueue('idempotencyKey 201 characters', { kind: 'plain', idempotencyKey: 'k'.repeat(201) }, invalid),
    enqueue('kind 201 characters', { kind: 'k'.repeat(201) }, invalid),
    raw('payload 1e309', '{"kind":"plain","payload":{"n":1e309}}', unstorable),
    raw(
      'payload numbers at the edges',
      '{"kind":"plain","payload":{"z":-0,"big":1e300,"tiny":5e-324,"long":12345678901234567890,"f":0.1}}',
      accepted,
    ),
    raw('payload nested 100 deep', `{"kind":"plain","payload":${nested(100)}}`, accepted),
    raw('payload nested 101 deep', `{"kind":"plain","payload":${nested(101)}}`, ['PAYLOAD_TOO_DEEP']),
    raw('payload nested 30,000 deep', `{"kind":"plain","payload":${nested(30_000)}}`, ['PAYLOAD_TOO_DEEP']),
    // Unknown kinds and payload schemas.
    enqueue('unknown kind', { kind: 'nope' }, unknownKind),
    enqueue('kind in another case', { kind: 'Plain' }, unknownKind),
    enqueue('kind with a leading space', { kind: ' plain' }, unknownKind),
    enqueue('kind with a zero-width space', { kind: 'plain\u200b' }, unknownKind),
    enqueue('kind default (the module’s default export)', { kind: 'default' }, unknownKind),
    enqueue('kind 200 characters', { kind: 'k'.repeat(200) }, unknownKind),
    enqueue('sendEmail to a number', { kind: 'sendEmail', payload: { to: 5 } }, schema),
    enqueue('sendEmail to not an email', { kind: 'sendEmail', payload: { to: 'not an email' } }, schema),
    enqueue(
      'sendEmail extra field',
      { kind: 'sendEmail', payload: { to: 'a@example.com', bcc: 'b@example.com' } },
      schema,
    ),
    enqueue('sendEmail without to', { kind: 'sendEmail', payload: {} }, schema),
    enqueue('sendEmail payload null', { kind: 'sendEmail', payload: null }, schema),
    enqueue('sendEmail payload a string', { kind: 'sendEmail', payload: 'a@example.com' }, schema),
    enqueue('report day 0', { kind: 'report', payload: { day: 0 } }, schema),
    enqueue('report day "1"', { kind: 'report', payload: { day: '1' } }, schema),
    enqueue('report day 1.5', { kind: 'report', payload: { day: 1.5 } }, schema),
    enqueue(
      'sendEmail valid',
      { kind: 'sendEmail', payload: { to: 'a@example.com', cc: [UNICODE.emoji!] } },
      accepted,
    ),
    enqueue('report valid (queue from the kind)', { kind: 'report', payload: { day: 31 } }, accepted),
    // Prototype keys.
    raw('__proto__ at the top level', `{"kind":"plain","__proto__":${POLLUTION}}`, jsonError),
    raw('__proto__ in the payload', `{"kind":"plain","payload":{"__proto__":${POLLUTION}}}`, jsonError),
    raw(
      '__proto__ nested in an array',
      `{"kind":"plain","payload":{"l":[{"a":{"__proto__":${POLLUTION}}}]}}`,
      jsonError,
    ),
    raw(
      '__proto__ key written with escapes',
      `{"kind":"plain","payload":{"\\u005f_proto\\u005f_":${POLLUTION}}}`,
      jsonError,
    ),
    raw(
      'constructor.prototype in the payload',
      `{"kind":"plain","payload":{"constructor":{"prototype":${POLLUTION}}}}`,
      jsonError,
    ),
    raw(
      'constructor.prototype at the top level',
      `{"kind":"plain","constructor":{"prototype":${POLLUTION}}}`,
      jsonError,
    ),
    raw('constructor as an option', `{"kind":"plain","constructor":${POLLUTION}}`, invalid),
    raw('prototype as an option', `{"kind":"plain","prototype":${POLLUTION}}`, invalid),
    raw(
      'prototype-named keys in the payload',
      `{"kind":"plain","payload":{"constructor":"c","prototype":${POLLUTION},"toString":1,"hasOwnProperty":null,"valueOf":[]}}`,
      accepted,
    ),
    raw(
      '__proto__ in a batch job',
      `{"jobs":[{"kind":"plain","__proto__":${POLLUTION}}]}`,
      jsonError,
      '/jobs/batch',
    ),
    raw(
      '__proto__ beside the batch',
      `{"jobs":[{"kind":"plain"}],"__proto__":${POLLUTION}}`,
      jsonError,
      '/jobs/batch',
    ),
    raw(
      'constructor option in a batch job',
      `{"jobs":[{"kind":"plain"},{"kind":"plain","constructor":${POLLUTION}}]}`,
      ['INVALID_BATCH'],
      '/jobs/batch',
    ),
    raw('__proto__ in a /nudge body (ignored)', `{"__proto__":${POLLUTION}}`, accepted, '/nudge'),
    raw(
      '__proto__ in a cancel body',
      `{"__proto__":${POLLUTION}}`,
      jsonError,
      '/jobs/999999999999999/cancel',
    ),
    ...['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'prototype'].map((kind) =>
      enqueue(`kind ${kind}`, { kind }, unknownKind),
    ),
    ...['__proto__', 'constructor', 'toString'].map((queue) =>
      enqueue(`queue ${queue}`, { kind: 'plain', queue, payload: { queue } }, accepted),
    ),
    ...['__proto__', 'constructor'].flatMap((key) => [
      enqueue(`idempotencyKey ${key}`, { kind: 'plain', idempotencyKey: key, payload: { key } }, accepted),
      enqueue(
        `idempotencyKey ${key} again`,
        { kind: 'plain', idempotencyKey: key, payload: { key } },
        accepted,
      ),
    ]),
    post('pause queue prototype', '/queues/prototype/pause', accepted),
    post('resume queue prototype', '/queues/prototype/resume', accepted),
    post('pause queue __proto__', '/queues/__proto__/pause', accepted),
    post('resume queue __proto__', '/queues/__proto__/resume', accepted),
    get('list with a __proto__ parameter', '/jobs?__proto__=1', invalid),
    get('list with __proto__[polluted]', '/jobs?__proto__%5Bpolluted%5D=1', invalid),
    get('list with kind constructor', '/jobs?kind=constructor', accepted),
    get('list with kind twice', '/jobs?kind=a&kind=b', ['accepted', 'INVALID_REQUEST']),
    // SQL-looking strings.
    ...SQL.flatMap((text, i) => [
      enqueue(`SQL in kind: ${text}`, { kind: text }, unknownKind),
      enqueue(`SQL in queue: ${text}`, { kind: 'plain', queue: text }, invalid),
      enqueue(
        `SQL in idempotencyKey: ${text}`,
        { kind: 'plain', idempotencyKey: text, payload: { i } },
        accepted,
      ),
      enqueue(
        `SQL in payload: ${text}`,
        { kind: 'plain', payload: { [text]: text, list: [text] } },
        accepted,
      ),
      get(`SQL in a list filter: ${text}`, `/jobs?kind=${encodeURIComponent(text)}`, accepted),
      get(`SQL in a job id: ${text}`, `/jobs/${encodeURIComponent(text)}`, invalid),
      post(`SQL in a cancel id: ${text}`, `/jobs/${encodeURIComponent(text)}/cancel`, invalid),
      post(`SQL in a queue name: ${text}`, `/queues/${encodeURIComponent(text)}/pause`, invalid),
    ]),
    raw(
      'batch of SQL strings',
      json({ jobs: SQL.map((text) => ({ kind: 'plain', payload: text })) }),
      accepted,
      '/jobs/batch',
    ),
    get('job id 0', '/jobs/0', invalid),
    get('job id 1e3', '/jobs/1e3', invalid),
    get('job id 16 digits', '/jobs/9999999999999999', invalid),
    get('job id 15 digits', '/jobs/999999999999999', ['JOB_NOT_FOUND']),
    get('job id with NUL', '/jobs/1%00', invalid),
    get('bad percent-encoding', '/jobs/%ZZ', ['INVALID_REQUEST', 'ROUTE_NOT_FOUND']),
    get('list limit 1000', '/jobs?limit=1000', invalid),
    get('no such route', '/jobs/1/../../admin', ['ROUTE_NOT_FOUND', 'INVALID_REQUEST', 'JOB_NOT_FOUND']),
    // Unicode.
    ...Object.entries(UNICODE).flatMap(([what, text]) => [
      enqueue(`${what} in payload`, { kind: 'plain', payload: { [text]: text, what } }, accepted),
      enqueue(`${what} in idempotencyKey`, { kind: 'plain', idempotencyKey: `${what} ${text}` }, accepted),
      enqueue(`${what} in kind`, { kind: text }, unknownKind),
      get(`${what} in a list filter`, `/jobs?kind=${encodeURIComponent(text)}`, accepted),
    ]),
    raw('escaped surrogate pair', '{"kind":"plain","payload":{"s":"\\ud83d\\ude00"}}', accepted),
    raw('lone high surrogate', '{"kind":"plain","payload":{"s":"a\\ud800b"}}', unstorable),
    raw('lone low surrogate', '{"kind":"plain","payload":["\\udc00"]}', unstorable),
    raw('reversed surrogate pair', '{"kind":"plain","payload":"\\ude00\\ud83d"}', unstorable),
    raw('lone surrogate in a payload key', '{"kind":"plain","payload":{"\\ud800":1}}', unstorable),
    raw('lone surrogate in idempotencyKey', '{"kind":"plain","idempotencyKey":"k\\udfff"}', unstorable),
    raw('lone surrogate in kind', '{"kind":"plain\\ud800"}', ['UNKNOWN_KIND', 'PAYLOAD_UNSTORABLE']),
    enqueue('NUL in payload', { kind: 'plain', payload: { s: 'a\u0000b' } }, unstorable),
    enqueue('NUL in a payload key', { kind: 'plain', payload: { 'a\u0000': 1 } }, unstorable),
    enqueue('NUL in idempotencyKey', { kind: 'plain', idempotencyKey: 'k\u0000' }, unstorable),
    enqueue('NUL in kind', { kind: 'plain\u0000' }, ['UNKNOWN_KIND', 'PAYLOAD_UNSTORABLE']),
    enqueue('NUL in queue', { kind: 'plain', queue: 'q\u0000' }, invalid),
    get('NUL in a list filter', '/jobs?kind=a%00b', ['accepted', 'INVALID_REQUEST', 'PAYLOAD_UNSTORABLE']),
    get('lone surrogate in a list filter', '/jobs?kind=%ED%A0%80', ['accepted', 'INVALID_REQUEST']),
    raw(
      'batch with one NUL job',
      json({ jobs: [{ kind: 'plain' }, { kind: 'plain', payload: '\u0000' }] }),
      ['INVALID_BATCH'],
      '/jobs/batch',
    ),
    raw(
      'batch with one unknown kind',
      json({ jobs: [{ kind: 'plain' }, { kind: 'nope' }] }),
      ['INVALID_BATCH'],
      '/jobs/batch',
    ),
    raw(
      'batch with one invalid schema',
      json({ jobs: [{ kind: 'plain' }, { kind: 'report', payload: { day: 99 } }] }),
      ['INVALID_BATCH'],
      '/jobs/batch',
    ),
    raw('batch empty', json({ jobs: [] }), invalid, '/jobs/batch'),
    raw(
      'batch of 1001',
      json({ jobs: Array.from({ length: 1001 }, () => ({ kind: 'plain' })) }),
      invalid,
      '/jobs/batch',
    ),
    raw(
      'batch with one key twice',
      json({
        jobs: [
          { kind: 'plain', idempotencyKey: 'twice' },
          { kind: 'plain', idempotencyKey: 'twice' },
        ],
      }),
      accepted,
      '/jobs/batch',
    ),
    raw(
      'batch of unicode',
      json({ jobs: Object.values(UNICODE).map((text) => ({ kind: 'plain', payload: text })) }),
      accepted,
      '/jobs/batch',
    ),
    enqueue('long ASCII string', { kind: 'plain', payload: 'x'.repeat(BODY_LIMIT_BYTES - 1000) }, accepted),
    enqueue(
      'long emoji string',
      { kind: 'plain', payload: '😀'.repeat((BODY_LIMIT_BYTES - 1000) / 4) },
      accepted,
    ),
    enqueue('long payload key', { kind: 'plain', payload: { ['k'.repeat(10_000)]: 1 } }, accepted),
    enqueue('idempotencyKey of 100 emoji', { kind: 'plain', idempotencyKey: '😀'.repeat(100) }, accepted),
    // API keys.
    { name: 'no Authorization', body: plain, auth: null, expect: unauthorized },
    { name: 'unknown key', body: plain, auth: bearer('wrong-key-0123456789abcdef'), expect: unauthorized },
    { name: 'Basic scheme', body: plain, auth: `Basic ${btoa(`x:${ADMIN}`)}`, expect: unauthorized },
    { name: 'Bearer without a key', body: plain, auth: 'Bearer', expect: unauthorized },
    { name: 'key with a character more', body: plain, auth: bearer(`${ADMIN}x`), expect: unauthorized },
    {
      name: 'key with a character less',
      body: plain,
      auth: bearer(ADMIN.slice(0, -1)),
      expect: unauthorized,
    },
    { name: 'SQL as the key', body: plain, auth: bearer("'OR'1'='1"), expect: unauthorized },
    { name: 'key of 8,000 characters', body: plain, auth: bearer('k'.repeat(8000)), expect: unauthorized },
    { name: 'two keys', body: plain, auth: `${bearer(ADMIN)}, ${bearer(ADMIN)}`, expect: unauthorized },
    {
      name: 'batch without a key',
      path: '/jobs/batch',
      body: json({ jobs: [{ kind: 'plain' }] }),
      auth: null,
      expect: unauthorized,
    },
    { name: 'invalid JSON without a key', body: '{', auth: null, expect: unauthorized },
    { name: '/nudge without a key', path: '/nudge', auth: null, expect: unauthorized },
    { name: 'list without a key', method: 'GET', auth: null, expect: unauthorized },
    { name: 'read key enqueues', body: plain, auth: bearer(READER), expect: ['FORBIDDEN'] },
    { name: 'enqueue key cancels', path: '/jobs/1/cancel', auth: bearer(PRODUCER), expect: ['FORBIDDEN'] },
    { name: 'enqueue key enqueues', body: plain, auth: bearer(PRODUCER), expect: accepted },
  ];
}

/** A body sent in chunks with no `Content-Length` (chunked transfer encoding). */
function chunkedBody(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(offset, offset + 16_384));
      offset += 16_384;
    },
  });
}

async function send(baseUrl: string, c: AbuseCase): Promise<Answer> {
  const method = c.method ?? 'POST';
  const headers: Record<string, string> = {};
  const auth = c.auth === undefined ? bearer(ADMIN) : c.auth;
  if (auth !== null) headers.authorization = auth;
  let body: Uint8Array | ReadableStream<Uint8Array> | undefined;
  if (c.body !== undefined) {
    body =
      typeof c.body === 'function'
        ? c.body()
        : typeof c.body === 'string'
          ? new TextEncoder().encode(c.body)
          : c.body;
    const type = c.contentType === undefined ? 'application/json' : c.contentType;
    if (type !== null) headers['content-type'] = type;
  }
  const init: RequestInit & { duplex?: 'half' } = {
    method,
    headers,
    body,
    signal: AbortSignal.timeout(30_000),
  };
  if (body instanceof ReadableStream) init.duplex = 'half';
  try {
    const response = await fetch(`${baseUrl}${c.path ?? '/jobs'}`, init);
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Not JSON: kept as text, and judged as an answer without a code.
    }
    return { status: response.status, body: parsed };
  } catch (error) {
    const cause = (error as Error).cause as Error | undefined;
    return { status: 0, body: undefined, failure: cause?.message ?? (error as Error).message };
  }
}

/** Equal as JSON: the same keys (any order) and values, strings compared unit for unit. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  return keys.every((key) => Object.hasOwn(y, key) && sameJson(x[key], y[key]));
}

/** A job as sent, as the checks compare it: kind, queue, payload and idempotency key. */
interface JobFields {
  readonly kind: unknown;
  readonly queue: unknown;
  readonly payload: unknown;
  readonly idempotencyKey: unknown;
}

/** The jobs a request body carries, with the queue each should land in. */
function sentJobs(c: AbuseCase): JobFields[] {
  const text = typeof c.body === 'string' ? c.body : new TextDecoder().decode(c.body as Uint8Array);
  // A byte order mark, if the server skipped it, is not part of the JSON.
  const parsed = JSON.parse(text.replace(/^\ufeff/, '')) as Record<string, unknown>;
  const jobs = (c.path === '/jobs/batch' ? parsed.jobs : [parsed]) as Record<string, unknown>[];
  return jobs.map((job) => ({
    kind: job.kind,
    queue: job.queue ?? (job.kind === 'report' ? 'reports' : 'default'),
    payload: job.payload ?? {},
    idempotencyKey: job.idempotencyKey ?? null,
  }));
}

const differences = (sent: JobFields, got: JobFields): string[] =>
  (['kind', 'queue', 'payload', 'idempotencyKey'] as const).filter(
    (field) => !sameJson(sent[field], got[field]),
  );

const codeOf = (body: unknown): unknown =>
  typeof body === 'object' && body !== null ? (body as Record<string, unknown>).code : undefined;

/** What the run saw, filled as answers arrive. */
class Findings {
  readonly statuses = new Map<number, number>();
  readonly issues = new Map<string, string[]>();
  /** Jobs created by an accepted enqueue, by id, as they were sent. */
  readonly created = new Map<number, JobFields>();
  /** Every id an accepted enqueue answered with (created, or existing under its key). */
  readonly acceptedIds = new Set<number>();
  readonly existingByKey = new Map<string, number>();
  sent = 0;

  issue(check: string, text: string): void {
    this.issues.set(check, [...(this.issues.get(check) ?? []), text]);
  }

  /** Judges one answer. */
  record(c: AbuseCase, answer: Answer): void {
    this.sent += 1;
    this.statuses.set(answer.status, (this.statuses.get(answer.status) ?? 0) + 1);
    const code = codeOf(answer.body);
    const why = typeof code === 'string' ? code : (answer.failure ?? '');
    const said = `${c.method ?? 'POST'} ${c.path ?? '/jobs'} "${c.name}" answered ${answer.status} ${why}`;
    if (answer.status >= 500) this.issue('no 5xx', `${said}: ${json(answer.body)}`);
    const ok = answer.status >= 200 && answer.status < 300;
    if (answer.status === 0 && c.expect.includes('no answer')) return;
    if (!ok) {
      const known = typeof code === 'string' && code in ERROR_CODES;
      if (
        answer.status < 400 ||
        answer.status >= 500 ||
        !known ||
        ERROR_CODES[code as ErrorCode].status !== answer.status
      )
        this.issue('every rejection is a 4xx with a code', said);
    }
    if (!c.expect.includes(ok ? 'accepted' : (code as ErrorCode))) {
      this.issue('every case answered as the API documents', `${said}, expected ${c.expect.join(' or ')}`);
    }
    if (ok && (c.path ?? '/jobs') === '/jobs' && (c.method ?? 'POST') === 'POST')
      this.accept(c, answer, [answer.body]);
    if (ok && c.path === '/jobs/batch') this.accept(c, answer, (answer.body as { jobs: unknown[] }).jobs);
  }

  private accept(c: AbuseCase, answer: Answer, views: unknown[]): void {
    const sent = sentJobs(c);
    views.forEach((view, i) => {
      const v = view as JobFields & { id: number; created?: boolean };
      const job = sent[i]!;
      this.acceptedIds.add(v.id);
      const keyId = `${String(job.kind)}\u0000${String(job.idempotencyKey)}`;
      const created = v.created ?? answer.status === 201;
      if (!created) {
        const first = this.existingByKey.get(keyId);
        if (job.idempotencyKey === null || (first !== undefined && first !== v.id))
          this.issue(
            'accepted strings stored and returned unchanged',
            `"${c.name}" job ${i}: answered an existing job ${v.id} under another key`,
          );
        return;
      }
      this.created.set(v.id, job);
      if (job.idempotencyKey !== null) this.existingByKey.set(keyId, v.id);
      const changed = differences(job, v);
      if (changed.length > 0)
        this.issue(
          'accepted strings stored and returned unchanged',
          `"${c.name}" job ${v.id}: the answer changed ${changed.join(', ')}`,
        );
    });
  }
}

async function countJobs(db: TestDatabase): Promise<number> {
  const [row] = await rawQuery<{ n: number | string }>(db, 'SELECT count(*) AS n FROM nudge_jobs');
  return Number(row?.n);
}

/** Sends `cases` `CONCURRENCY` at a time. */
async function sendConcurrently(url: string, cases: readonly AbuseCase[], findings: Findings): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let c = cases[next++]; c !== undefined; c = cases[next++]) findings.record(c, await send(url, c));
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

/** Sends the burst at once to the rate-limited server and checks that what passed the limit was refused. */
async function burst(url: string, round: number, findings: Findings): Promise<void> {
  const cases = Array.from({ length: BURST }, (_, i) =>
    enqueue('burst past the rate limit', { kind: 'plain', payload: { round, i, text: UNICODE.emoji } }, [
      'accepted',
      'RATE_LIMITED',
    ]),
  );
  const answers = await Promise.all(cases.map((c) => send(url, c)));
  answers.forEach((answer, i) => findings.record(cases[i]!, answer));
  const limited = answers.filter((a) => a.status === 429 && codeOf(a.body) === 'RATE_LIMITED').length;
  if (limited < BURST - RATE_LIMIT_PER_MINUTE)
    findings.issue(
      'a burst past the rate limit answers 429 RATE_LIMITED',
      `round ${round}: ${limited} of ${BURST} limited`,
    );
  const probe: AbuseCase = {
    name: 'health probe while limited',
    method: 'GET',
    path: '/healthz',
    auth: null,
    expect: ['accepted'],
  };
  findings.record(probe, await send(url, probe));
}

/** Compares every created job with its row and its `GET /jobs/:id`; returns how many differ or are missing. */
async function verifyStored(db: TestDatabase, url: string, findings: Findings): Promise<number> {
  const rows = await rawQuery<Record<string, unknown>>(
    db,
    'SELECT id, kind, queue, payload, idempotency_key FROM nudge_jobs',
  );
  const byId = new Map(rows.map((row) => [Number(row.id), row]));
  let lost = 0;
  for (const [id, sent] of findings.created) {
    const row = byId.get(id);
    const stored = row && {
      kind: row.kind,
      queue: row.queue,
      payload:
        typeof row.payload === 'string' && db.dialect === 'sqlite'
          ? (JSON.parse(row.payload) as unknown)
          : row.payload,
      idempotencyKey: row.idempotency_key,
    };
    const changed = stored ? differences(sent, stored) : ['the row'];
    if (changed.length > 0) {
      lost += 1;
      findings.issue(
        'accepted strings stored and returned unchanged',
        `job ${id}: stored ${changed.join(', ')} differ(s) from what was sent`,
      );
    }
    const answer = await send(url, {
      name: `read job ${id}`,
      method: 'GET',
      path: `/jobs/${id}`,
      expect: ['accepted'],
    });
    const returned = differences(sent, answer.body as JobFields);
    if (answer.status !== 200 || returned.length > 0)
      findings.issue(
        'accepted strings stored and returned unchanged',
        `GET /jobs/${id} answered ${answer.status}, ${returned.join(', ')} differ(s)`,
      );
  }
  for (const id of findings.acceptedIds)
    if (!byId.has(id)) findings.issue('rejected requests wrote 0 rows', `accepted job ${id} has no row`);
  if (rows.length !== findings.acceptedIds.size)
    findings.issue(
      'rejected requests wrote 0 rows',
      `${rows.length} rows, ${findings.acceptedIds.size} jobs accepted`,
    );
  return lost;
}

/** Queue names that are properties of `Object.prototype`: jobs go in them, and must run. */
const PROTOTYPE_QUEUES = ['__proto__', 'constructor', 'toString'];

/** Whether every job in {@link PROTOTYPE_QUEUES} finished within `timeoutMs`. */
async function prototypeQueuesDrained(db: TestDatabase, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await rawQuery<{ n: number | string }>(
      db,
      `SELECT count(*) AS n FROM nudge_jobs WHERE queue IN (?, ?, ?) AND status NOT IN ('SUCCEEDED', 'FAILED', 'CANCELLED')`,
      PROTOTYPE_QUEUES,
    );
    if (Number(row?.n) === 0) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * After the abuse: no prototype of this process is polluted; the server still enqueues a plain
 * job with the defaults (a polluted `Object.prototype.queue` or `priority` would show there), runs
 * the jobs of queues named `__proto__`, `constructor` and `toString`, and lists them in `/stats`.
 */
async function pollutionProbe(db: TestDatabase, url: string, findings: Findings): Promise<void> {
  const probe: AbuseCase = {
    name: 'plain job after the abuse',
    body: '{"kind":"plain"}',
    expect: ['accepted'],
  };
  const answer = await send(url, probe);
  findings.record(probe, answer);
  const view = answer.body as Record<string, unknown>;
  const defaults =
    view.queue === 'default' && view.priority === 0 && view.maxAttempts === 5 && sameJson(view.payload, {});
  const health = await send(url, {
    name: 'healthz',
    method: 'GET',
    path: '/healthz',
    auth: null,
    expect: [],
  });
  const local =
    ({} as Record<string, unknown>).polluted === undefined && Object.keys(Object.prototype).length === 0;
  if (answer.status !== 201 || !defaults || health.status !== 200 || !local)
    findings.issue(
      'no prototype pollution',
      `probe answered ${answer.status} ${json(answer.body)}, /healthz ${health.status}, this process clean: ${local}`,
    );
  if (!(await prototypeQueuesDrained(db, 15_000)))
    findings.issue(
      'no prototype pollution',
      `jobs in queues ${PROTOTYPE_QUEUES.join(', ')} did not run within 15 s`,
    );
  const stats = await send(url, { name: 'stats', method: 'GET', path: '/stats', expect: [] });
  const byQueue = (stats.body as { byQueue?: object } | undefined)?.byQueue ?? {};
  const missing = PROTOTYPE_QUEUES.filter((queue) => !Object.hasOwn(byQueue, queue));
  if (stats.status !== 200 || missing.length > 0)
    findings.issue(
      'no prototype pollution',
      `GET /stats answered ${stats.status} without queues ${missing.join(', ')}`,
    );
}

async function run(dialect: Dialect, size: ChaosSize): Promise<ScenarioResult> {
  const db = await createTestDatabase(dialect);
  const servers: ServerProcess[] = [];
  try {
    await (await openStore(db)).close();
    const env = {
      DATABASE_URL: db.url,
      NUDGE_HANDLERS: HANDLERS,
      NUDGE_THREADS: '1',
      NUDGE_ASYNC_THREADS: '1',
      NUDGE_BODY_LIMIT_BYTES: String(BODY_LIMIT_BYTES),
      NUDGE_API_KEYS: `${ADMIN}:admin,${READER}:read,${PRODUCER}:enqueue`,
      LOG_LEVEL: 'fatal',
    };
    const [open, limited] = await Promise.all([
      spawnServer({ env: { ...env, NUDGE_RATE_LIMIT_PER_MINUTE: '0' } }),
      spawnServer({ env: { ...env, NUDGE_RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT_PER_MINUTE) } }),
    ]);
    servers.push(open, limited);
    const findings = new Findings();
    const cases = abuseCases();
    // The first round one request at a time, counting rows around each refused one.
    let rows = await countJobs(db);
    for (const c of cases) {
      const answer = await send(open.url, c);
      findings.record(c, answer);
      const now = await countJobs(db);
      if (!(answer.status >= 200 && answer.status < 300) && now !== rows)
        findings.issue(
          'rejected requests wrote 0 rows',
          `"${c.name}" answered ${answer.status} but rows went from ${rows} to ${now}`,
        );
      rows = now;
    }
    await burst(limited.url, 1, findings);
    for (let round = 2; round <= ROUNDS[size]; round += 1) {
      await Promise.all([sendConcurrently(open.url, cases, findings), burst(limited.url, round, findings)]);
    }
    await pollutionProbe(db, open.url, findings);
    let tableThere = true;
    await countJobs(db).catch(() => (tableThere = false));
    const lost = tableThere ? await verifyStored(db, open.url, findings) : findings.created.size;
    const checkNames = [
      'every rejection is a 4xx with a code',
      'no 5xx',
      'rejected requests wrote 0 rows',
      'accepted strings stored and returned unchanged',
      'no prototype pollution',
      'every case answered as the API documents',
      'a burst past the rate limit answers 429 RATE_LIMITED',
    ];
    for (const [check, texts] of findings.issues)
      console.error(`${dialect}: ${check}:\n  ${texts.slice(0, 20).join('\n  ')}`);
    const count = (from: number, to: number) =>
      [...findings.statuses]
        .filter(([status]) => status >= from && status < to)
        .reduce((n, [, k]) => n + k, 0);
    return {
      scenario: 16,
      title: apiAbuse.title,
      dialect,
      jobs: findings.sent,
      lost,
      fencingViolations: 0,
      duplicatesExplained: 0,
      duplicatesUnexplained: 0,
      worstRecoveryMs: null,
      recoveryBoundMs: null,
      checks: {
        'nudge_jobs still there': tableThere,
        ...Object.fromEntries(checkNames.map((name) => [name, !findings.issues.has(name)])),
      },
      notes: {
        '2xx': count(200, 300),
        '4xx': count(400, 500),
        '5xx': count(500, 600),
        unanswered: count(0, 1),
        'jobs created': findings.created.size,
      },
    };
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await db.drop();
  }
}

/**
 * Scenario 16: API abuse. Two servers on one database, with API keys, a small body limit and (on
 * the second) a rate limit of 10 a minute, get oversized and malformed bodies, wrong types,
 * unknown kinds, payloads that fail their kind's schema, prototype keys, SQL-looking and unusual
 * Unicode strings, bad keys and a burst past the limit. Every refusal is a 4xx with a code and
 * writes nothing; every accepted job is stored and returned as sent; nothing answers 5xx.
 */
export const apiAbuse: Scenario = {
  id: 16,
  title: 'API abuse: oversized, malformed, prototype, SQL and Unicode bodies, bad keys, rate limit',
  dialects: DIALECTS,
  run,
};

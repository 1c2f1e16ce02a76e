// Scenario 16's requests about scopes and bounds: an enqueue-only key that tries to read or
// change another producer's job through an enqueue, a flood of bad keys at the rate-limited
// server, queue names that are path segments, and paths with dot segments sent as they are.
import { request } from 'node:http';
import { ADMIN, bearer, enqueue, json, PRODUCER, raw, type AbuseCase, type Answer } from './api-abuse-kit.js';

/** The payload another producer's job carries: an enqueue-only key must never read it back. */
export const SECRET_PAYLOAD = { password: 'hunter2' };

/** The fields an enqueue-only key may see of a job it did not create, sorted. */
export const DEDUPE_HIT_FIELDS = ['created', 'id', 'status'];

/**
 * The admin's jobs first (an idempotency key, a throttle window, a debounce, each holding
 * {@link SECRET_PAYLOAD}), then the enqueue-only key's requests that meet them: its hits must show
 * `{id, status, created}` only, and its debounce must be refused. Queue names `.` and `..` are
 * refused wherever a queue name is taken.
 */
export function scopeCases(): AbuseCase[] {
  const hour = 3_600_000;
  const keyed = { kind: 'plain', idempotencyKey: 'abuse-order-1' };
  const throttled = { kind: 'plain', throttle: { key: 'abuse-window', windowMs: hour } };
  const debounced = { kind: 'plain', debounce: { key: 'abuse-doc', delayMs: hour } };
  const asProducer = (c: AbuseCase): AbuseCase => ({ ...c, auth: bearer(PRODUCER) });
  return [
    enqueue('admin job under an idempotency key', { ...keyed, payload: SECRET_PAYLOAD }, ['accepted']),
    enqueue('admin throttled job', { ...throttled, payload: SECRET_PAYLOAD }, ['accepted']),
    enqueue('admin debounced job', { ...debounced, payload: SECRET_PAYLOAD }, ['accepted']),
    asProducer(enqueue('enqueue-only key meets the idempotency key', keyed, ['accepted'])),
    asProducer(enqueue('enqueue-only key meets the throttle window', throttled, ['accepted'])),
    asProducer(
      raw(
        'enqueue-only key meets both in a batch',
        json({ jobs: [keyed, throttled] }),
        ['accepted'],
        '/jobs/batch',
      ),
    ),
    asProducer(
      enqueue('enqueue-only key debounces the admin job', { ...debounced, payload: { stolen: true } }, [
        'DEBOUNCE_OWNED_BY_OTHER_KEY',
      ]),
    ),
    enqueue('queue named .', { kind: 'plain', queue: '.' }, ['INVALID_REQUEST']),
    enqueue('queue named ..', { kind: 'plain', queue: '..' }, ['INVALID_REQUEST']),
    raw(
      'batch with queue ..',
      json({ jobs: [{ kind: 'plain' }, { kind: 'plain', queue: '..' }] }),
      ['INVALID_BATCH'],
      '/jobs/batch',
    ),
    { name: 'list of queue ..', method: 'GET', path: '/jobs?queue=..', expect: ['INVALID_REQUEST'] },
    raw('bulk cancel of queue .', json({ queue: '.' }), ['INVALID_REQUEST'], '/jobs/cancel'),
  ];
}

/** Paths with dot segments, sent byte for byte (`fetch` would remove the segments first). */
export const DOT_SEGMENT_PATHS = [
  '/dashboard/../jobs/1',
  '/dashboard/%2e%2e/jobs/1',
  '/dashboard/../../etc/passwd',
  '/queues/../jobs',
];

/** GETs `path` as given, with the admin key; a reset connection answers status 0. */
export function getRawPath(baseUrl: string, path: string): Promise<Answer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    const req = request({ hostname, port, path, headers: { authorization: bearer(ADMIN) } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => {
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // Not JSON: judged as an answer without a code.
        }
        resolve({ status: response.statusCode ?? 0, body });
      });
    });
    req.on('error', (error) => resolve({ status: 0, body: undefined, failure: error.message }));
    req.end();
  });
}

/** The traversal cases, as the findings judge them: each answers `404 ROUTE_NOT_FOUND`. */
export const dotSegmentCase = (path: string): AbuseCase => ({
  name: `dot segments: ${path}`,
  method: 'GET',
  path,
  expect: ['ROUTE_NOT_FOUND'],
});

/**
 * `count` requests with a wrong or missing key at once: past the limit they must answer
 * `429 RATE_LIMITED` (counted per client address), the rest `401 UNAUTHORIZED`.
 */
export function badKeyFlood(count: number): AbuseCase[] {
  return Array.from({ length: count }, (_, i) => ({
    name: 'bad-key flood past the rate limit',
    body: json({ kind: 'plain' }),
    auth: i % 2 === 0 ? bearer(`wrong-key-${i}-0123456789abcdef`) : null,
    expect: ['UNAUTHORIZED', 'RATE_LIMITED'],
  }));
}

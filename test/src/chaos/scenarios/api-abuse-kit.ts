// Scenario 16's vocabulary: the shape of an abusive request, the keys and strings the cases
// use, and how a request is sent and its stored job compared.
import type { ErrorCode } from '@nudge/core';

export const BODY_LIMIT_BYTES = 65_536;
export const ADMIN = 'chaos-admin-key-0123456789';
export const READER = 'chaos-reader-key-0123456789';
export const PRODUCER = 'chaos-producer-key-0123456789';
export const bearer = (key: string) => `Bearer ${key}`;

/**
 * What the API documents for a case: `accepted` (any 2xx), an error code it may answer, or `no
 * answer` where the server may close the connection before the client has finished sending (a
 * chunked body past the limit: the client may see the reset before the `413`).
 */
export type Expected = 'accepted' | ErrorCode | 'no answer';

/** One abusive request. Bodies are bytes (or a stream without a length) so nothing is re-encoded. */
export interface AbuseCase {
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

export interface Answer {
  readonly status: number;
  readonly body: unknown;
  /** Why no answer came (a reset connection), when `status` is 0. */
  readonly failure?: string;
}

export const SQL = [
  "'; DROP TABLE nudge_jobs; --",
  '1 OR 1=1',
  '" OR ""="',
  '1); DELETE FROM nudge_jobs; --',
  '?',
  '$1',
];
export const UNICODE: Record<string, string> = {
  emoji: '👍🏽 👨‍👩‍👧‍👦 🏳️‍🌈',
  combining: 'e\u0301 Z\u0324\u0344a\u0310 \u00e9',
  rtl: 'שלום مرحبا \u202eevil\u202c',
  zeroWidth: 'a\u200bb\u200cc\u200dd\ufeffe',
  controls: '\u0001\u001f\u007f\u0085\u2028\u2029',
  nonCharacters: '\ufffe\uffff \u{10ffff} \u{1fffe} \ufffd',
};
export const POLLUTION = '{"polluted":true,"queue":"polluted","priority":999,"maxAttempts":77}';

export const json = JSON.stringify;
export const enqueue = (name: string, job: object, expect: readonly Expected[]): AbuseCase => ({
  name,
  body: json(job),
  expect,
});
export const raw = (name: string, body: string, expect: readonly Expected[], path = '/jobs'): AbuseCase => ({
  name,
  path,
  body,
  expect,
});
export const nested = (levels: number) => `${'['.repeat(levels)}"x"${']'.repeat(levels)}`;
/** A `POST /jobs` body of exactly `bytes` bytes. */
export const bodyOfBytes = (bytes: number) => {
  const frame = json({ kind: 'plain', payload: '' });
  return `${frame.slice(0, -2)}${'x'.repeat(bytes - frame.length)}"}`;
};

/** A body sent in chunks with no `Content-Length` (chunked transfer encoding). */
export function chunkedBody(text: string): ReadableStream<Uint8Array> {
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

/** Sends one case over real HTTP; a reset connection answers status 0 with its cause. */
export async function send(baseUrl: string, c: AbuseCase): Promise<Answer> {
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
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  return keys.every((key) => Object.hasOwn(y, key) && sameJson(x[key], y[key]));
}

/**
 * A job as sent, as the checks compare it: kind, queue, payload and idempotency key, and whether
 * it was throttled or debounced (an answer with an existing job is then no key mix-up).
 */
export interface JobFields {
  readonly kind: unknown;
  readonly queue: unknown;
  readonly payload: unknown;
  readonly idempotencyKey: unknown;
  readonly deduped?: boolean;
}

/** The jobs a request body carries, with the queue each should land in. */
export function sentJobs(c: AbuseCase): JobFields[] {
  const text = typeof c.body === 'string' ? c.body : new TextDecoder().decode(c.body as Uint8Array);
  // A byte order mark, if the server skipped it, is not part of the JSON.
  const parsed = JSON.parse(text.replace(/^\ufeff/, '')) as Record<string, unknown>;
  const jobs = (c.path === '/jobs/batch' ? parsed.jobs : [parsed]) as Record<string, unknown>[];
  return jobs.map((job) => ({
    kind: job.kind,
    queue: job.queue ?? (job.kind === 'report' ? 'reports' : 'default'),
    payload: job.payload ?? {},
    idempotencyKey: job.idempotencyKey ?? null,
    deduped: job.throttle !== undefined || job.debounce !== undefined,
  }));
}

export const differences = (sent: JobFields, got: JobFields): string[] =>
  (['kind', 'queue', 'payload', 'idempotencyKey'] as const).filter(
    (field) => !sameJson(sent[field], got[field]),
  );

export const codeOf = (body: unknown): unknown =>
  typeof body === 'object' && body !== null ? (body as Record<string, unknown>).code : undefined;

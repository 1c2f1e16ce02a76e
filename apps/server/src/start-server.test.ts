import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { JobLease } from '@nudge/store';
import { NudgeError } from '@nudge/core';
import type { ServerOptions } from './server-options.js';
import { startServer, type RunningServer } from './start-server.js';

/** Options of a server on a fresh SQLite file in `dir`, on a free port, logging nothing. */
function testOptions(dir: string, handlersSource: string): ServerOptions {
  const handlers = join(dir, 'handlers.mjs');
  writeFileSync(handlers, handlersSource);
  return {
    databaseUrl: `sqlite:${join(dir, 'nudge.db')}`,
    handlers,
    port: 0,
    engine: { threads: 2, shutdownGraceMs: 1000 },
    logLevel: 'silent',
  };
}

/** Resolves when the engine has recorded the success of job `id`; rejects after `timeoutMs`. */
function succeeded(server: RunningServer, timeoutMs = 15_000): (id: number) => Promise<void> {
  const done = new Set<number>();
  const waiters = new Map<number, () => void>();
  server.engine.on('job:succeeded', (lease: JobLease) => {
    done.add(lease.id);
    waiters.get(lease.id)?.();
  });
  return (id) =>
    new Promise((resolve, reject) => {
      if (done.has(id)) return resolve();
      const timer = setTimeout(
        () => reject(new Error(`job ${id} did not succeed in ${timeoutMs} ms`)),
        timeoutMs,
      );
      waiters.set(id, () => {
        clearTimeout(timer);
        resolve();
      });
    });
}

describe('startServer', () => {
  let dir: string;
  let server: RunningServer;
  let waitForSuccess: (id: number) => Promise<void>;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'nudge-server-'));
    server = await startServer(testOptions(dir, 'export async function echo(payload) { return payload; }\n'));
    waitForSuccess = succeeded(server);
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('listens on the port it reports', () => {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.notEqual(server.url, 'http://127.0.0.1:0');
    assert.deepEqual(server.engine.kinds, ['echo']);
  });

  it('passes the engine object through to the engine', () => {
    assert.equal(server.engine.slots.cpu?.total, 2);
  });

  it('is ready over HTTP once started', async () => {
    const response = await fetch(`${server.url}/readyz`);
    assert.equal(response.status, 200);
    assert.equal(((await response.json()) as { status: string }).status, 'ready');
  });

  it('runs a job posted over HTTP to SUCCEEDED', async () => {
    const payload = { to: 'a@example.com', n: [1, 2, 3] };
    const created = await fetch(`${server.url}/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'echo', payload }),
    });
    assert.equal(created.status, 201);
    const { id } = (await created.json()) as { id: number };
    await waitForSuccess(id);
    const read = await fetch(`${server.url}/jobs/${id}`);
    assert.equal(read.status, 200);
    const job = (await read.json()) as Record<string, unknown>;
    assert.equal(job.status, 'SUCCEEDED');
    assert.equal(job.attempts, 1);
    assert.deepEqual(job.result, payload);
    assert.equal(typeof job.finishedAt, 'string');
  });

  it('answers POST /nudge with no body', async () => {
    const response = await fetch(`${server.url}/nudge`, { method: 'POST' });
    assert.equal(response.status, 202);
    assert.deepEqual(await response.json(), { accepted: true });
  });

  it('answers 404 to a path with . or .. segments, sent as is (a browser or fetch would remove them)', async () => {
    /** GET `path` byte for byte: status and parsed body. */
    const raw = (path: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const { hostname, port } = new URL(server.url);
        get({ hostname, port, path }, (response) => {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (body += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
        }).on('error', reject);
      });
    for (const path of [
      '/dashboard/../jobs/1',
      '/dashboard/%2e%2e/jobs/1',
      '/dashboard/./index.html',
      '/dashboard/..',
      '/queues/../jobs',
    ]) {
      const { status, body } = await raw(path);
      assert.equal(status, 404, `${path}: ${body}`);
      const parsed = JSON.parse(body) as { code: string; message: string };
      assert.equal(parsed.code, 'ROUTE_NOT_FOUND', path);
      assert.match(parsed.message, /a "\." or "\.\." segment names nothing/);
      assert.doesNotMatch(parsed.message, /routes:/, 'no route list without a key');
    }
    assert.equal((await raw('/dashboard/')).status, 200, 'the dashboard itself is served');
  });

  it('closes in order and only once: HTTP first, then the engine, then the store', async () => {
    const events: string[] = [];
    server.app.server.once('close', () => events.push('http closed'));
    server.engine.once('stopped', () => events.push('engine stopped'));
    const { store } = server;
    const closeStore = store.close.bind(store);
    store.close = async () => {
      events.push('store closing');
      await closeStore();
      events.push('store closed');
    };
    const first = server.close();
    assert.equal(server.close(), first);
    await first;
    await assert.rejects(fetch(`${server.url}/healthz`));
    assert.deepEqual(events, ['http closed', 'engine stopped', 'store closing', 'store closed']);
    await assert.rejects(server.store.ping());
  });
});

describe('startServer failures', () => {
  it('refuses a handler module that exports no handler, leaving nothing running', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nudge-server-'));
    try {
      await assert.rejects(
        startServer(testOptions(dir, 'export const notAHandler = 1;\n')),
        (error: unknown) => error instanceof NudgeError && error.code === 'HANDLERS_INVALID',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

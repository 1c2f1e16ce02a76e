// The HTTP client of @nudge/client against a real nudge server process (SQLite, the fixture
// handlers), and nudge() against it and against a closed port.
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import {
  createClient,
  nudge,
  NudgeApiError,
  NudgeUnreachableError,
  WaitTimeoutError,
  type JobView,
} from '@nudge/client';
import { spawnServer, type ServerProcess } from '@nudge/harness';
import {
  FIXTURE_HANDLERS,
  createScratch,
  createSqliteDatabase,
  waitUntil,
  type Scratch,
  type TestDatabase,
} from '../helpers/index.js';

/** A `fetch` that records every request's method, URL and headers. */
function recordingFetch(): {
  fetch: typeof fetch;
  calls: Array<{ method: string; url: string; headers: Headers }>;
} {
  const calls: Array<{ method: string; url: string; headers: Headers }> = [];
  return {
    calls,
    fetch: (input, init) => {
      const url = input instanceof Request ? input.url : input.toString();
      calls.push({ method: init?.method ?? 'GET', url, headers: new Headers(init?.headers) });
      return fetch(input, init);
    },
  };
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

type Payloads = { echo: { text: string }; hold: { releaseFile: string }; noop: Record<string, never> };

describe('HTTP client against a nudge server', () => {
  let db: TestDatabase;
  let scratch: Scratch;
  let server: ServerProcess;
  before(async () => {
    db = await createSqliteDatabase();
    scratch = createScratch();
    server = await spawnServer({
      env: {
        DATABASE_URL: db.url,
        NUDGE_HANDLERS: fileURLToPath(FIXTURE_HANDLERS),
        NUDGE_THREADS: '2',
        NUDGE_POLL_INTERVAL_MS: '200',
        LOG_LEVEL: 'warn',
      },
    });
  });
  after(async () => {
    scratch?.release();
    await server?.stop('SIGTERM', 20_000);
    scratch?.remove();
    await db?.drop();
  });

  test('enqueue, get and waitFor one job; an idempotency key answers the existing job', async () => {
    const recorded = recordingFetch();
    const client = createClient<Payloads>({
      baseUrl: `${server.url}/`,
      apiKey: 'secret',
      fetch: recorded.fetch,
    });
    const job = await client.enqueue({
      kind: 'echo',
      payload: { text: 'hi' },
      idempotencyKey: 'once',
      priority: 3,
    });
    assert.equal(job.created, true);
    assert.equal(job.kind, 'echo');
    assert.deepEqual(job.payload, { text: 'hi' });
    const again = await client.enqueue({ kind: 'echo', payload: { text: 'other' }, idempotencyKey: 'once' });
    assert.equal(again.created, false);
    assert.equal(again.id, job.id);
    const done = await client.waitFor(job.id, { timeoutMs: 15_000, intervalMs: 20 });
    assert.equal(done.status, 'SUCCEEDED');
    assert.deepEqual((done.result as { payload: unknown }).payload, { text: 'hi' });
    assert.equal((await client.get(job.id)).finishedAt, done.finishedAt);
    assert.ok(recorded.calls.every((call) => call.headers.get('authorization') === 'Bearer secret'));
    assert.ok(
      recorded.calls.every((call) => !call.url.includes('//jobs')),
      'the trailing slash is dropped',
    );
  });

  test('enqueue with throttle and debounce: the window job and the replaced waiting job come back with created: false', async () => {
    const client = createClient<Payloads>({ baseUrl: server.url });
    const throttle = { key: 'acct-1', windowMs: 3_600_000 };
    const first = await client.enqueue({ kind: 'echo', payload: { text: 'a' }, throttle });
    const again = await client.enqueue({ kind: 'echo', payload: { text: 'b' }, throttle });
    assert.deepEqual([first.created, again.created, again.id], [true, false, first.id]);
    assert.equal(again.throttleKey, 'acct-1');
    const debounce = { key: 'doc-1', delayMs: 3_600_000 };
    const waiting = await client.enqueue({ kind: 'echo', payload: { text: 'c' }, debounce });
    const [replaced] = await client.enqueueMany([{ kind: 'echo', payload: { text: 'd' }, debounce }]);
    assert.equal(waiting.status, 'SCHEDULED');
    assert.deepEqual([replaced?.id, replaced?.created], [waiting.id, false]);
    const read = await client.get(waiting.id);
    assert.deepEqual([read.payload, read.debounceKey, read.status], [{ text: 'd' }, 'doc-1', 'SCHEDULED']);
    await assert.rejects(
      client.enqueue({ kind: 'echo', payload: { text: 'e' }, debounce, runAt: new Date() }),
      (error: unknown) => {
        assert.ok(error instanceof NudgeApiError);
        assert.equal(error.status, 400);
        assert.equal(error.code, 'INVALID_REQUEST');
        assert.match(error.message, /\/debounce and \/runAt cannot both be given/);
        return true;
      },
    );
  });

  test('cancel and retry answer the job view, or a NudgeApiError JOB_STATE_CONFLICT with the status', async () => {
    const client = createClient<Payloads>({ baseUrl: server.url });
    const held = await client.enqueue({ kind: 'hold', payload: { releaseFile: scratch.releaseFile } });
    const cancelled = await client.cancel(held.id);
    assert.equal(cancelled.status, 'CANCELLED');
    await assert.rejects(client.cancel(held.id), (error: unknown) => {
      assert.ok(error instanceof NudgeApiError);
      assert.equal(error.status, 409);
      assert.equal(error.code, 'JOB_STATE_CONFLICT');
      assert.match(error.message, /cannot be cancelled: it is CANCELLED/);
      return true;
    });
    const done = await client.enqueue({ kind: 'noop', payload: {} });
    assert.equal((await client.waitFor(done.id, { timeoutMs: 15_000, intervalMs: 20 })).status, 'SUCCEEDED');
    await assert.rejects(client.retry(done.id), { status: 409, code: 'JOB_STATE_CONFLICT' });
    scratch.release();
    const retried = await client.retry(held.id);
    assert.equal(retried.status, 'PENDING');
    assert.equal(retried.attempts, 0);
    assert.equal((await client.waitFor(held.id, { timeoutMs: 15_000, intervalMs: 20 })).status, 'SUCCEEDED');
    await assert.rejects(client.cancel(999_999), { status: 404, code: 'JOB_NOT_FOUND' });
  });

  test('retryAll and cancelAll answer the counts; a bad filter is a NudgeApiError INVALID_REQUEST', async () => {
    const client = createClient<Payloads>({ baseUrl: server.url });
    const at = new Date(Date.now() + 3_600_000);
    const later = await client.enqueueMany([
      { kind: 'noop', payload: {}, queue: 'bulk-client', runAt: at },
      { kind: 'noop', payload: {}, queue: 'bulk-client', runAt: at },
    ]);
    assert.equal(await client.cancelAll({ queue: 'bulk-client', status: ['SCHEDULED'] }), 2);
    assert.equal(await client.cancelAll({ queue: 'bulk-client' }), 0);
    assert.equal(
      await client.retryAll({
        status: 'CANCELLED',
        queue: 'bulk-client',
        finishedBefore: new Date(Date.now() + 60_000),
      }),
      2,
    );
    const done = await client.waitFor(
      later.map((job) => job.id),
      { timeoutMs: 15_000, intervalMs: 20 },
    );
    assert.deepEqual(
      done.map((job) => job.status),
      ['SUCCEEDED', 'SUCCEEDED'],
    );
    await assert.rejects(client.retryAll({ status: 'RUNNING' }), { status: 400, code: 'INVALID_REQUEST' });
    await assert.rejects(client.cancelAll({ limit: 0 }), { status: 400, code: 'INVALID_REQUEST' });
  });

  test('list filters by queue', async () => {
    const client = createClient<Payloads>({ baseUrl: server.url });
    const job = await client.enqueue({ kind: 'noop', payload: {}, queue: 'listed' });
    assert.equal(job.queue, 'listed');
    const { jobs } = await client.list({ queue: 'listed' });
    assert.deepEqual(
      jobs.map((j) => j.id),
      [job.id],
    );
  });

  test('errors carry status, code and message; a batch refusal lists its jobs', async () => {
    const client = createClient({ baseUrl: server.url });
    await assert.rejects(client.get(999_999), (error: unknown) => {
      assert.ok(error instanceof NudgeApiError);
      assert.equal(error.status, 404);
      assert.equal(error.code, 'JOB_NOT_FOUND');
      assert.match(error.message, /999999/);
      return true;
    });
    await assert.rejects(client.enqueue({ kind: 'nope' }), { status: 400, code: 'UNKNOWN_KIND' });
    await assert.rejects(
      client.enqueueMany([{ kind: 'echo' }, { kind: 'nope' }, { kind: 'echo', priority: 5000 }]),
      (error: unknown) => {
        assert.ok(error instanceof NudgeApiError);
        assert.equal(error.code, 'INVALID_BATCH');
        assert.deepEqual(
          error.errors?.map((problem) => [problem.index, problem.code]),
          [
            [1, 'UNKNOWN_KIND'],
            [2, 'INVALID_REQUEST'],
          ],
        );
        return true;
      },
    );
  });

  test('enqueueMany, then list pages by status and kind with the cursor', async () => {
    const client = createClient<Payloads>({ baseUrl: server.url });
    const jobs = await client.enqueueMany([
      { kind: 'noop' },
      { kind: 'noop', runAt: new Date(Date.now() + 3_600_000) },
      { kind: 'noop', runAt: new Date(Date.now() + 3_600_000) },
      { kind: 'noop', runAt: new Date(Date.now() + 3_600_000) },
    ]);
    assert.deepEqual(
      jobs.map((job) => [job.created, job.status]),
      [
        [true, 'PENDING'],
        [true, 'SCHEDULED'],
        [true, 'SCHEDULED'],
        [true, 'SCHEDULED'],
      ],
    );
    const first = await client.list({ status: 'SCHEDULED', kind: 'noop', limit: 2 });
    assert.deepEqual(
      first.jobs.map((job) => job.id),
      [jobs[3]?.id, jobs[2]?.id],
    );
    assert.ok(first.nextCursor);
    const second = await client.list({
      status: 'SCHEDULED',
      kind: 'noop',
      limit: 2,
      cursor: first.nextCursor,
    });
    assert.deepEqual(
      second.jobs.map((job) => job.id),
      [jobs[1]?.id],
    );
    assert.equal(second.nextCursor, null);
  });

  test('50 concurrent waitFor calls share one GET /jobs?ids= per tick', async () => {
    const recorded = recordingFetch();
    const client = createClient<Payloads>({ baseUrl: server.url, fetch: recorded.fetch });
    const releaseFile = `${scratch.dir}/release-50`;
    const jobs = await client.enqueueMany(
      Array.from({ length: 50 }, () => ({ kind: 'hold' as const, payload: { releaseFile } })),
    );
    recorded.calls.length = 0;
    const startedMs = Date.now();
    const waits = jobs.map((job) => client.waitFor(job.id, { timeoutMs: 20_000, intervalMs: 100 }));
    // Release the jobs once the waits have shared five reads, rather than after a fixed while.
    const shared = () => recorded.calls.filter((call) => call.url.includes('/jobs?ids=')).length;
    await waitUntil(() => (shared() >= 5 ? true : undefined), 15_000, 10, 'five shared reads');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(releaseFile, '');
    const views: JobView[] = await Promise.all(waits);
    const elapsedMs = Date.now() - startedMs;
    assert.ok(views.every((view) => view.status === 'SUCCEEDED'));
    const reads = recorded.calls.filter((call) => call.url.includes('/jobs?ids='));
    assert.equal(reads.length, recorded.calls.length, 'no GET /jobs/:id per job');
    const ticks = Math.ceil(elapsedMs / 100) + 1;
    assert.ok(reads.length <= ticks, `${reads.length} reads in ${elapsedMs} ms (at most ${ticks} ticks)`);
    assert.ok(reads.length >= 5, `polled all along (${reads.length} reads)`);
    const firstIds = new URL(reads[0]?.url ?? '').searchParams.get('ids')?.split(',') ?? [];
    assert.equal(firstIds.length, 50, 'the first read asks for every job');
  });

  test('waitFor a list, a timeout, an abort and an unknown id', async () => {
    const client = createClient<Payloads>({ baseUrl: server.url, pollIntervalMs: 20 });
    const releaseFile = `${scratch.dir}/release-timeout`;
    const [held] = await client.enqueueMany([{ kind: 'hold', payload: { releaseFile } }]);
    const quick = await client.enqueue({ kind: 'noop' });
    const id = held?.id ?? 0;
    await assert.rejects(client.waitFor([quick.id, id], { timeoutMs: 300 }), (error: unknown) => {
      assert.ok(error instanceof WaitTimeoutError);
      assert.deepEqual(error.ids, [id]);
      return true;
    });
    // Many waits on one signal share one abort listener (no MaxListenersExceededWarning).
    const controller = new AbortController();
    const aborted = Array.from({ length: 30 }, () => client.waitFor(id, { signal: controller.signal }));
    assert.equal(getEventListeners(controller.signal, 'abort').length, 1);
    controller.abort(new Error('stop waiting'));
    for (const wait of aborted) await assert.rejects(wait, /stop waiting/);
    await assert.rejects(client.waitFor([quick.id, 987_654]), { status: 404, code: 'JOB_NOT_FOUND' });
    const { writeFileSync } = await import('node:fs');
    writeFileSync(releaseFile, '');
    const views = await client.waitFor([id, quick.id], { timeoutMs: 15_000 });
    assert.deepEqual(
      views.map((view) => [view.id, view.status]),
      [
        [id, 'SUCCEEDED'],
        [quick.id, 'SUCCEEDED'],
      ],
    );
  });

  test('nudge() resolves ok from a server, and never throws without one', async () => {
    assert.deepEqual(await nudge(server.url), { ok: true });
    assert.deepEqual(await createClient({ baseUrl: server.url }).nudge(), { ok: true });
    const url = `http://127.0.0.1:${await closedPort()}`;
    const seen: Error[] = [];
    const outcome = await nudge(url, { timeoutMs: 500, onError: (error) => seen.push(error) });
    assert.equal(outcome.ok, false);
    assert.ok(!outcome.ok && outcome.error instanceof NudgeUnreachableError);
    assert.match(seen[0]?.message ?? '', new RegExp(`${url}/nudge`));
    const throwing = await nudge(url, {
      onError: () => {
        throw new Error('a broken hook');
      },
    });
    assert.equal(throwing.ok, false);
    await assert.rejects(createClient({ baseUrl: url }).get(1), (error: unknown) => {
      assert.ok(error instanceof NudgeUnreachableError);
      assert.equal(error.url, `${url}/jobs/1`);
      assert.match(
        error.message,
        /cannot reach the nudge server at http:\/\/127\.0\.0\.1:\d+\/jobs\/1: ECONNREFUSED/,
      );
      return true;
    });
  });
});

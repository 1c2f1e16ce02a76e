// `client.signal` of @nudge/client against a real nudge server process (SQLite, the durable
// fixture handlers): a job waiting in ctx.waitForSignal shows what it waits for in GET /jobs/:id,
// and a signal over HTTP releases it.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { createClient, NudgeApiError, type JobView } from '@nudge/client';
import { spawnServer, type ServerProcess } from '@nudge/harness';
import {
  DURABLE_HANDLERS,
  createScratch,
  createSqliteDatabase,
  waitUntil,
  type Scratch,
  type TestDatabase,
} from '../helpers/index.js';

describe('client.signal against a nudge server', () => {
  let db: TestDatabase;
  let scratch: Scratch;
  let server: ServerProcess;
  before(async () => {
    db = await createSqliteDatabase();
    scratch = createScratch();
    server = await spawnServer({
      env: {
        DATABASE_URL: db.url,
        NUDGE_HANDLERS: fileURLToPath(DURABLE_HANDLERS),
        NUDGE_THREADS: '1',
        NUDGE_POLL_INTERVAL_MS: '200',
        LOG_LEVEL: 'warn',
      },
    });
  });
  after(async () => {
    await server?.stop('SIGTERM', 20_000);
    scratch?.remove();
    await db?.drop();
  });

  test('a job waiting for a signal shows it; client.signal releases it, once per signalId', async () => {
    const client = createClient({ baseUrl: server.url });
    const ledger = join(scratch.dir, 'ledger');
    const job = await client.enqueue({
      kind: 'asyncFlow',
      payload: { ledger, signal: 'approve', timeoutMs: 3_600_000 },
    });
    const waiting = await waitUntil(
      async () => {
        const view = await client.get(job.id);
        return view.status === 'WAITING' ? view : undefined;
      },
      20_000,
      20,
      'the job to wait for its signal',
    );
    assert.ok(waiting.waitingFor && 'signal' in waiting.waitingFor);
    assert.equal(waiting.waitingFor.signal, 'approve');
    assert.ok(waiting.waitingFor.deadline !== null && Date.parse(waiting.waitingFor.deadline) > Date.now());
    assert.deepEqual(
      waiting.steps?.map((s) => [s.name, s.type, s.status]),
      [
        ['a', 'step', 'SUCCEEDED'],
        ['approve', 'signal', 'WAITING'],
      ],
    );

    const sent = await client.signal(job.id, 'approve', { ok: true }, { signalId: 'review-1' });
    assert.equal(sent.created, true);
    assert.deepEqual(
      [sent.jobId, sent.name, sent.payload, sent.signalId],
      [job.id, 'approve', { ok: true }, 'review-1'],
    );
    const repeat = await client.signal(job.id, 'approve', { ok: false }, { signalId: 'review-1' });
    assert.deepEqual(repeat, { ...sent, created: false });

    const done: JobView = await client.waitFor(job.id, { timeoutMs: 15_000, intervalMs: 20 });
    assert.equal(done.status, 'SUCCEEDED');
    assert.deepEqual((done.result as { got: unknown }).got, { ok: true });
    assert.equal(done.waitingFor, undefined);

    await assert.rejects(client.signal(job.id, 'approve'), (error: unknown) => {
      assert.ok(error instanceof NudgeApiError);
      assert.equal(error.status, 409);
      assert.equal(error.code, 'JOB_STATE_CONFLICT');
      return true;
    });
    await assert.rejects(client.signal(987_654, 'approve'), { status: 404, code: 'JOB_NOT_FOUND' });
    await assert.rejects(client.signal(job.id, ''), { status: 400, code: 'INVALID_REQUEST' });
  });
});

// `client.logs` of @nudge/client against a real nudge server process (SQLite, the fixture
// handlers): a finished job's ctx.log lines read page by page with the cursor, and the same lines
// in the service's own log with the job's id and attempt.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { createClient, NudgeApiError } from '@nudge/client';
import { spawnServer, type ServerProcess } from '@nudge/harness';
import { FIXTURE_HANDLERS, createSqliteDatabase, type TestDatabase } from '../helpers/index.js';

describe('client.logs against a nudge server', () => {
  let db: TestDatabase;
  let server: ServerProcess;
  const serviceLog: string[] = [];
  before(async () => {
    db = await createSqliteDatabase();
    server = await spawnServer({
      env: {
        DATABASE_URL: db.url,
        NUDGE_HANDLERS: fileURLToPath(FIXTURE_HANDLERS),
        NUDGE_THREADS: '1',
        NUDGE_POLL_INTERVAL_MS: '200',
        NUDGE_LOG_LINES_PER_JOB: '20',
        LOG_LEVEL: 'info',
      },
      onLine: (line, stream) => {
        if (stream === 'stdout') serviceLog.push(line);
      },
    });
  });
  after(async () => {
    await server?.stop('SIGTERM', 20_000);
    await db?.drop();
  });

  test("reads a finished job's lines by pages, with the lines dropped over the cap", async () => {
    const client = createClient({ baseUrl: server.url });
    const job = await client.enqueue({ kind: 'asyncLogLines', payload: { count: 25 } });
    const done = await client.waitFor(job.id, { timeoutMs: 15_000, intervalMs: 20 });
    assert.equal(done.status, 'SUCCEEDED');
    const first = await client.logs(job.id, { limit: 15 });
    assert.equal(first.lines.length, 15);
    assert.deepEqual(
      [
        first.lines[0]?.seq,
        first.lines[0]?.attempt,
        first.lines[0]?.level,
        first.lines[0]?.message,
        first.lines[0]?.fields,
      ],
      [1, 1, 'info', 'line 1 of attempt 1', { i: 1 }],
    );
    const second = await client.logs(job.id, { after: first.cursor });
    assert.deepEqual(
      second.lines.map((l) => l.seq),
      [16, 17, 18, 19, 20],
    );
    assert.equal(second.dropped, 6, 'five info lines and the debug line over the cap of 20');
    assert.equal((await client.logs(job.id, { after: second.cursor })).lines.length, 0);
    await assert.rejects(client.logs(987_654), (error: unknown) => {
      assert.ok(error instanceof NudgeApiError);
      assert.equal(error.code, 'JOB_NOT_FOUND');
      return true;
    });
    await assert.rejects(client.logs(job.id, { limit: 0 }), { status: 400, code: 'INVALID_REQUEST' });
    // The kept lines in the service's log too, with the job's fields: a thread sends no more lines
    // of an attempt than the cap, so those over it are only counted.
    const logged = serviceLog
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((entry) => entry.jobId === job.id && /^line \d+ of attempt 1$/.test(String(entry.msg)));
    assert.equal(logged.length, 20);
    assert.deepEqual(
      [logged[2]?.attempt, logged[2]?.kind, logged[2]?.fields],
      [1, 'asyncLogLines', { i: 3 }],
    );
  });
});

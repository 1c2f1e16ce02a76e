// Issue item 12: a producer process on the same SQLite file as a running nudge server. The
// producer writes 2,000 jobs in many small transactions through @nudge/client while the server
// claims, runs and completes them in the same file: no SQLITE_BUSY may reach the producer, and
// every job must run exactly once; then a job is picked up at once after nudge(), and within the
// poll interval without it (the server sees the producer's commit through PRAGMA data_version).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { createClient, enqueue, nudge } from '@nudge/client';
import { spawnServer, type ServerProcess } from '@nudge/harness';
import {
  FIXTURE_HANDLERS,
  createScratch,
  createSqliteDatabase,
  type Scratch,
  type TestDatabase,
} from '../helpers/index.js';
import { runNode } from '../demo/run-node.js';

const PRODUCER = fileURLToPath(new URL('../fixtures/produce-jobs.js', import.meta.url));
const POLL_INTERVAL_MS = 3000;
const JOBS = 2000;

describe('a SQLite producer process beside a running server', () => {
  let db: TestDatabase;
  let scratch: Scratch;
  let server: ServerProcess;
  let path: string;
  before(async () => {
    db = await createSqliteDatabase();
    scratch = createScratch();
    path = db.url.slice('sqlite:'.length);
    server = await spawnServer({
      env: {
        DATABASE_URL: db.url,
        NUDGE_HANDLERS: fileURLToPath(FIXTURE_HANDLERS),
        NUDGE_THREADS: '2',
        NUDGE_POLL_INTERVAL_MS: String(POLL_INTERVAL_MS),
        LOG_LEVEL: 'warn',
      },
    });
  });
  after(async () => {
    await server?.stop('SIGTERM', 20_000);
    scratch?.remove();
    await db?.drop();
  });

  test(`${JOBS} jobs in small transactions: no error reaches the producer, each runs once`, async () => {
    const tally = join(scratch.dir, 'tally');
    const client = createClient({ baseUrl: server.url, pollIntervalMs: 100 });
    // The server drains while the producer writes: nudge it every 50 ms, so claims and completions
    // contend for the write lock with the producer's transactions all along.
    let producing = true;
    const nudger = (async () => {
      while (producing) {
        await nudge(server.url);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const run = await runNode(PRODUCER, process.env, scratch.dir, [path, String(JOBS), '4', tally]);
    producing = false;
    await nudger;
    assert.equal(run.code, 0, run.stderr);
    const { ids, errors } = JSON.parse(run.stdout) as { ids: number[]; errors: string[] };
    assert.deepEqual(errors, []);
    assert.equal(ids.length, JOBS);
    const views = await client.waitFor(ids, { timeoutMs: 120_000 });
    assert.ok(views.every((view) => view.status === 'SUCCEEDED' && view.attempts === 1));
    const ran = readFileSync(tally, 'utf8').trim().split('\n').map(Number);
    assert.equal(ran.length, JOBS, 'each job ran once');
    assert.deepEqual(
      [...new Set(ran)].sort((a, b) => a - b),
      [...ids].sort((a, b) => a - b),
    );
  });

  test('a job is started at once after nudge(), and within the poll interval without it', async () => {
    const client = createClient({ baseUrl: server.url, pollIntervalMs: 20 });
    const conn = new Database(path);
    conn.pragma('busy_timeout = 5000');
    try {
      const run = async (withNudge: boolean): Promise<{ latency: number; startedAt: number }> => {
        const { id } = await enqueue(conn, { kind: 'noop' });
        if (withNudge) assert.deepEqual(await nudge(server.url), { ok: true });
        const view = await client.waitFor(id, { timeoutMs: POLL_INTERVAL_MS * 3 });
        assert.equal(view.status, 'SUCCEEDED');
        const startedAt = Date.parse(view.startedAt ?? '');
        return { latency: startedAt - Date.parse(view.createdAt), startedAt };
      };
      // No claim poll explains a start within 90 % of the poll interval (jitter): the nudge does,
      // or the server's watch for other connections' commits (PRAGMA data_version).
      const CLAIM_MARGIN_MS = 500;
      const nudged = await run(true);
      assert.ok(
        nudged.latency < 0.9 * POLL_INTERVAL_MS - CLAIM_MARGIN_MS,
        `started ${nudged.latency} ms after the commit with a nudge`,
      );
      const unnudged = (await run(false)).latency;
      // The poll interval is jittered by about 10%.
      assert.ok(
        unnudged <= POLL_INTERVAL_MS * 1.1 + CLAIM_MARGIN_MS,
        `started ${unnudged} ms after the commit without a nudge`,
      );
    } finally {
      conn.close();
    }
  });
});

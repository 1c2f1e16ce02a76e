// The service as users run it: `node apps/server/dist/main.js` in its own process, driven over HTTP.
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnServer, type ServerProcess } from '@nudge/harness';
import {
  DIALECTS,
  FIXTURE_HANDLERS,
  createScratch,
  createTestDatabase,
  openStore,
  rawQuery,
  waitUntil,
  type Scratch,
  type TestDatabase,
} from '../helpers/index.js';

interface JobView {
  id: number;
  status: string;
  attempts: number;
  result: unknown;
}

async function postJob(url: string, body: object): Promise<JobView> {
  const response = await fetch(`${url}/jobs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.equal(response.status, 201, await response.clone().text());
  return (await response.json()) as JobView;
}

async function getJob(url: string, id: number): Promise<JobView> {
  const response = await fetch(`${url}/jobs/${id}`);
  assert.equal(response.status, 200);
  return (await response.json()) as JobView;
}

const untilStatus = (url: string, id: number, status: string, timeoutMs = 30_000): Promise<JobView> =>
  waitUntil(
    async () => {
      const job = await getJob(url, id);
      return job.status === status ? job : undefined;
    },
    timeoutMs,
    25,
    `job ${id} to be ${status}`,
  );

const serverEnv = (db: TestDatabase, extra: Record<string, string> = {}) => ({
  DATABASE_URL: db.url,
  NUDGE_HANDLERS: fileURLToPath(FIXTURE_HANDLERS),
  NUDGE_THREADS: '2',
  NUDGE_POLL_INTERVAL_MS: '200',
  LOG_LEVEL: 'warn',
  ...extra,
});

for (const dialect of DIALECTS) {
  describe(`server process end to end: ${dialect}`, () => {
    let db: TestDatabase;
    let scratch: Scratch;
    const servers: ServerProcess[] = [];

    beforeEach(async () => {
      db = await createTestDatabase(dialect);
      scratch = createScratch();
    });
    afterEach(async () => {
      scratch.release();
      await Promise.all(servers.splice(0).map((s) => s.stop('SIGKILL')));
      await db.drop();
      scratch.remove();
    });

    it('runs a job enqueued over HTTP to SUCCEEDED', async () => {
      const server = await spawnServer({ env: serverEnv(db) });
      servers.push(server);
      const job = await postJob(server.url, { kind: 'echo', payload: { hello: 'world' } });
      // RUNNING when the instance took the job in the insert itself (a free slot, nothing due
      // ahead); PENDING when a claim in flight held the slots (just after start, here).
      assert.ok(['RUNNING', 'PENDING'].includes(job.status), job.status);
      const done = await untilStatus(server.url, job.id, 'SUCCEEDED');
      assert.deepEqual((done.result as { payload: unknown }).payload, { hello: 'world' });
      assert.equal(await server.stop('SIGTERM'), 0, 'graceful exit on SIGTERM');
    });

    it('loses no job when the server is killed with SIGKILL mid-job', async () => {
      const env = serverEnv(db, { NUDGE_LEASE_MS: '1000', NUDGE_SWEEP_INTERVAL_MS: '200' });
      const first = await spawnServer({ env });
      servers.push(first);
      const job = await postJob(first.url, { kind: 'hold', payload: { releaseFile: scratch.releaseFile } });
      await untilStatus(first.url, job.id, 'RUNNING');
      await first.stop('SIGKILL');
      scratch.release();
      const second = await spawnServer({ env });
      servers.push(second);
      const done = await untilStatus(second.url, job.id, 'SUCCEEDED');
      assert.equal(done.attempts, 2, 'the killed attempt counted, the second one succeeded');
    });
  });
}

describe('two service processes on one PostgreSQL database', () => {
  it('run 2,000 jobs, each succeeding exactly once', async () => {
    const db = await createTestDatabase('postgres');
    const scratch = createScratch();
    const servers: ServerProcess[] = [];
    try {
      const store = await openStore(db);
      const file = join(scratch.dir, 'tally');
      await store.enqueueMany(Array.from({ length: 2000 }, () => ({ kind: 'tally', payload: { file } })));
      await store.close();
      for (let i = 0; i < 2; i += 1) servers.push(await spawnServer({ env: serverEnv(db) }));
      await Promise.all(servers.map((s) => fetch(`${s.url}/nudge`, { method: 'POST' })));
      await waitUntil(
        async () => {
          const [row] = await rawQuery<{ n: string }>(
            db,
            `SELECT count(*) AS n FROM nudge_jobs WHERE status = 'SUCCEEDED'`,
          );
          return Number(row?.n) === 2000 ? true : undefined;
        },
        120_000,
        100,
        '2,000 jobs to succeed',
      );
      const runs = readFileSync(file, 'utf8').trim().split('\n');
      assert.equal(runs.length, 2000, 'no job ran twice');
      assert.equal(new Set(runs).size, 2000);
      const owners = await rawQuery<{ claimed_by: string; n: string }>(
        db,
        'SELECT claimed_by, count(*) AS n FROM nudge_jobs GROUP BY claimed_by',
      );
      assert.equal(owners.length, 2, `both instances ran jobs: ${JSON.stringify(owners)}`);
      const [attempts] = await rawQuery<{ max: number }>(db, 'SELECT max(attempts) AS max FROM nudge_jobs');
      assert.equal(attempts?.max, 1);
    } finally {
      await Promise.all(servers.map((s) => s.stop('SIGTERM')));
      await db.drop();
      scratch.remove();
    }
  });
});

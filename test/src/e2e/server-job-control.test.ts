// Job control through a running server process on a real database, not the HTTP tests' stand-in
// engine: a cancel aborts the handler, a pause binds every instance, `NUDGE_SCHEDULES` ticks run,
// and a handler's progress shows in `GET /jobs/:id` while it runs. Handlers wait on gate files the
// test creates and append what they did to event files; nothing here sleeps.
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { fileURLToPath } from 'node:url';
import { spawnServer, type ServerProcess } from '@nudge/harness';
import {
  DIALECTS,
  createScratch,
  createTestDatabase,
  rawQuery,
  waitUntil,
  type Scratch,
  type TestDatabase,
} from '../helpers/index.js';
import {
  claimQueries,
  fileLines,
  getJob,
  postJob,
  postJson,
  untilJob,
  untilLine,
  untilStatus,
  type JobView,
} from './server-http.js';

const HANDLERS = fileURLToPath(new URL('../fixtures/handlers-gates.js', import.meta.url));

const POLL_MS = 200;

/**
 * A lease of 10 minutes: heartbeats come every 200 s, so within these tests only the cancelling
 * instance's own abort can reach a running handler, never a heartbeat finding the job cancelled.
 */
const LEASE_MS = 600_000;

/** Longest wait for an abort: a fraction of the heartbeat interval ({@link LEASE_MS} / 3). */
const ABORT_WITHIN_MS = 30_000;

for (const dialect of DIALECTS) {
  describe(`server process, job control: ${dialect}`, () => {
    let db: TestDatabase;
    let scratch: Scratch;
    const servers: ServerProcess[] = [];

    const start = async (extra: Record<string, string> = {}): Promise<ServerProcess> => {
      const server = await spawnServer({
        env: {
          DATABASE_URL: db.url,
          NUDGE_HANDLERS: HANDLERS,
          NUDGE_THREADS: '2',
          NUDGE_POLL_INTERVAL_MS: String(POLL_MS),
          NUDGE_LEASE_MS: String(LEASE_MS),
          LOG_LEVEL: 'warn',
          ...extra,
        },
      });
      servers.push(server);
      return server;
    };

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

    it('POST /jobs/:id/cancel aborts the running handler: it sees ctx.signal fire, never does its side effect, and the job stays CANCELLED', async () => {
      const server = await start();
      const events = join(scratch.dir, 'events');
      const gateFile = join(scratch.dir, 'gate');
      const job = await postJob(server.url, { kind: 'cancellable', payload: { events, gateFile } });
      await untilLine(events, 'start');
      assert.equal((await getJob(server.url, job.id)).status, 'RUNNING');
      const cancelled = await postJson<JobView>(`${server.url}/jobs/${job.id}/cancel`, undefined, 200);
      assert.equal(cancelled.status, 'CANCELLED');
      await untilLine(events, 'aborted', ABORT_WITHIN_MS);
      // Were the handler still waiting, opening the gate now would let it do its side effect.
      writeFileSync(gateFile, '');
      assert.deepEqual(await untilLine(events, 'end'), ['start', 'aborted', 'end']);
      const after = await getJob(server.url, job.id);
      assert.equal(after.status, 'CANCELLED', "the aborted attempt's late failure changed nothing");
      assert.equal(after.attempts, 1);
    });

    it('a queue paused over HTTP is claimed by neither of two instances, and runs once resumed', async () => {
      const a = await start();
      const b = await start();
      const file = join(scratch.dir, 'tally');
      const paused = await postJson<{ paused: boolean }>(`${a.url}/queues/mail/pause`, undefined, 200);
      assert.equal(paused.paused, true);
      // Enqueued through both instances: a free slot would let each take its job in the insert.
      const jobs: JobView[] = [];
      for (const server of [a, b, a, b])
        jobs.push(await postJob(server.url, { kind: 'tally', queue: 'mail', payload: { file } }));
      assert.deepEqual(
        jobs.map((job) => job.status),
        ['PENDING', 'PENDING', 'PENDING', 'PENDING'],
      );
      // Each instance polls every POLL_MS (±10%). Two more claim queries than now means one began
      // after the jobs were committed: the pause, stored by the other instance, held there too.
      const before = await Promise.all([a, b].map((s) => claimQueries(s.url)));
      await Promise.all(
        [a, b].map((s, i) =>
          waitUntil(
            async () => ((await claimQueries(s.url)) >= (before[i] ?? 0) + 2 ? true : undefined),
            30_000,
            POLL_MS / 4,
            `two claim queries of instance ${i}`,
          ),
        ),
      );
      for (const job of jobs) assert.equal((await getJob(b.url, job.id)).status, 'PENDING');
      assert.deepEqual(fileLines(file), [], 'no handler ran');

      await postJson(`${b.url}/queues/mail/resume`, undefined, 200);
      for (const job of jobs) await untilStatus(a.url, job.id, 'SUCCEEDED');
      assert.deepEqual(
        fileLines(file)
          .map(Number)
          .sort((x, y) => x - y),
        jobs.map((job) => job.id).sort((x, y) => x - y),
        'each ran once',
      );
    });

    it('runs the ticks of NUDGE_SCHEDULES: a schedule every second creates jobs that succeed', async () => {
      const file = join(scratch.dir, 'tally');
      const schedules = [{ name: 'every-second', cron: '* * * * * *', kind: 'tally', payload: { file } }];
      await start({ NUDGE_SCHEDULES: JSON.stringify(schedules) });
      const ticks = await waitUntil(
        async () => {
          const rows = await rawQuery<{ id: number | string; idempotency_key: string }>(
            db,
            `SELECT id, idempotency_key FROM nudge_jobs WHERE kind = 'tally' AND status = 'SUCCEEDED' ORDER BY id`,
          );
          return rows.length >= 3 ? rows : undefined;
        },
        30_000,
        100,
        'three ticks to run',
      );
      for (const tick of ticks) assert.match(tick.idempotency_key, /^every-second@/);
      assert.equal(new Set(ticks.map((tick) => tick.idempotency_key)).size, ticks.length, 'one job a tick');
      const ran = new Set(fileLines(file).map(Number));
      for (const tick of ticks) assert.ok(ran.has(Number(tick.id)), `tick job ${tick.id} ran its handler`);
    });

    it("shows a running handler's ctx.progress in GET /jobs/:id", async () => {
      const server = await start();
      const events = join(scratch.dir, 'events');
      const gateFile = join(scratch.dir, 'gate');
      const progress = { percent: 40, step: 'halfway' };
      const job = await postJob(server.url, {
        kind: 'progressGate',
        payload: { events, gateFile, progress },
      });
      await untilLine(events, 'reported');
      // The handler waits at its gate: whatever the view shows now, it shows of a running job.
      const seen = await untilJob(
        server.url,
        job.id,
        (view) => isDeepStrictEqual(view.progress, progress),
        'to show its progress',
      );
      assert.equal(seen.status, 'RUNNING');
      writeFileSync(gateFile, '');
      const done = await untilStatus(server.url, job.id, 'SUCCEEDED');
      assert.deepEqual(done.progress, progress, 'kept after the job finished');
    });
  });
}

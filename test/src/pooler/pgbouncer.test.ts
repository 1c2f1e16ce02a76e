// nudge behind a real PgBouncer in transaction mode with 2 server connections: two service
// instances and two producer processes go through it, LISTEN goes direct (NUDGE_LISTEN_URL).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { spawnServer, type ServerProcess } from '@nudge/harness';
import { PostgresStore } from '@nudge/store';
import { findPgBouncer, startPgBouncer, type RunningPgBouncer } from '@nudge/test-databases/pgbouncer';
import {
  FIXTURE_HANDLERS,
  adminPostgresUrl,
  createPostgresDatabase,
  waitUntil,
  type TestDatabase,
} from '../helpers/index.js';

const run = promisify(execFile);
const PRODUCER = fileURLToPath(new URL('./pooled-producer.js', import.meta.url));
const JOBS_PER_PRODUCER = 1000;

// Locally a missing pgbouncer skips these tests; in CI (CI=true) it fails them.
const missing = findPgBouncer() === undefined && process.env.CI !== 'true';
const skip = missing ? 'pgbouncer is not installed (apt-get install pgbouncer)' : false;

interface ProducerReport {
  ids: number[];
  statuses: Record<string, number>;
  errors: string[];
}

/** The JSON log lines a server printed at `error` (50) or above. */
function errorLines(server: ServerProcess): string[] {
  return server
    .output()
    .stdout.split('\n')
    .filter((line) => {
      try {
        return ((JSON.parse(line) as { level?: number }).level ?? 0) >= 50;
      } catch {
        return false;
      }
    });
}

describe('behind PgBouncer in transaction mode', { skip }, () => {
  let db: TestDatabase;
  let bouncer: RunningPgBouncer;
  let pooledUrl: string;

  before(async () => {
    db = await createPostgresDatabase();
    bouncer = await startPgBouncer({ upstreamUrl: adminPostgresUrl(), poolMode: 'transaction', poolSize: 2 });
    pooledUrl = bouncer.url(new URL(db.url).pathname.slice(1));
  });
  after(async () => {
    await bouncer?.stop();
    await db?.drop();
  });

  it('a store finds the pooler: no prepared statements, and LISTEN only through a direct listenUrl', async () => {
    const behind = new PostgresStore(pooledUrl);
    const withListen = new PostgresStore(pooledUrl, { listenUrl: db.url });
    const direct = new PostgresStore(db.url);
    const declared = new PostgresStore(db.url, { preparedStatements: false });
    try {
      await behind.migrate();
      assert.deepEqual(await behind.connectionMode(), {
        pooled: true,
        namedStatements: false,
        listenUrl: undefined,
      });
      assert.equal(behind.capabilities.supportsListen, false);
      assert.throws(() => behind.listenForNewJobs({ onWake: () => undefined }), /direct connection/);
      assert.deepEqual(await withListen.connectionMode(), {
        pooled: true,
        namedStatements: false,
        listenUrl: db.url,
      });
      assert.equal(withListen.capabilities.supportsListen, true);
      assert.deepEqual(await direct.connectionMode(), {
        pooled: false,
        namedStatements: true,
        listenUrl: db.url,
      });
      assert.deepEqual(await declared.connectionMode(), {
        pooled: true,
        namedStatements: false,
        listenUrl: undefined,
      });
      // Through the pooler, twice each (a second run would reuse a prepared statement): enqueue,
      // claim, heartbeat, complete.
      for (let round = 0; round < 2; round += 1) {
        const job = await behind.enqueue({ kind: 'probe', payload: { round } });
        const [claimed] = await behind.claim({
          workerId: 'probe',
          leaseMs: 30_000,
          groups: [{ kinds: ['probe'], limit: 1 }],
        });
        assert.equal(claimed?.id, job.id);
        const lease = { id: claimed.id, version: claimed.version };
        assert.equal((await behind.heartbeat([lease], 30_000)).length, 1);
        assert.equal((await behind.complete([{ ...lease, resultJson: '{}' }])).length, 1);
      }
    } finally {
      await Promise.all([behind, withListen, direct, declared].map((store) => store.close()));
    }
  });

  it('two instances and two producers through a pool of 2 connections: 2,000 jobs, each run once, no error, no 5xx', async () => {
    const servers: ServerProcess[] = [];
    const env = {
      DATABASE_URL: pooledUrl,
      NUDGE_LISTEN_URL: db.url,
      NUDGE_HANDLERS: fileURLToPath(FIXTURE_HANDLERS),
      NUDGE_THREADS: '1',
      NUDGE_POLL_INTERVAL_MS: '200',
      LOG_LEVEL: 'info',
    };
    try {
      // Started together: both migrate through the pooler under the transaction-level lock.
      servers.push(...(await Promise.all([spawnServer({ env }), spawnServer({ env })])));
      for (const server of servers)
        assert.match(server.output().stdout, /reached through a transaction pooler/, server.output().stdout);

      const direct = new pg.Client({ connectionString: db.url });
      await direct.connect();
      try {
        const listeners = await waitUntil(
          async () => {
            const { rows } = await direct.query<{ n: number }>(
              `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%'`,
            );
            return rows[0]!.n === 2 ? rows[0]!.n : undefined;
          },
          10_000,
          50,
          'both instances to LISTEN on their direct connection',
        );
        assert.equal(listeners, 2);

        const urls = servers.map((s) => s.url).join(',');
        const reports = await Promise.all(
          (['sql', 'http'] as const).map(async (mode) => {
            const { stdout } = await run(process.execPath, [
              PRODUCER,
              mode,
              String(JOBS_PER_PRODUCER),
              pooledUrl,
              urls,
            ]);
            return JSON.parse(stdout) as ProducerReport;
          }),
        );
        for (const report of reports) {
          assert.deepEqual(report.errors, []);
          assert.equal(report.ids.length, JOBS_PER_PRODUCER);
          assert.deepEqual(
            Object.keys(report.statuses).filter((status) => Number(status) >= 500),
            [],
            JSON.stringify(report.statuses),
          );
        }
        const ids = new Set(reports.flatMap((r) => r.ids));
        assert.equal(ids.size, 2 * JOBS_PER_PRODUCER);

        const counts = await waitUntil(
          async () => {
            const { rows } = await direct.query<{ status: string; attempts: number; n: number }>(
              `SELECT status, attempts, count(*)::int AS n FROM nudge_jobs WHERE kind = 'echo' GROUP BY status, attempts`,
            );
            return rows.every((r) => r.status === 'SUCCEEDED') ? rows : undefined;
          },
          120_000,
          200,
          'every job to succeed',
        );
        assert.deepEqual(counts, [{ status: 'SUCCEEDED', attempts: 1, n: 2 * JOBS_PER_PRODUCER }]);
        const { rows } = await direct.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM nudge_jobs WHERE kind = 'echo' AND (result->'payload'->>'n') IS NULL`,
        );
        assert.equal(rows[0]!.n, 0, 'every result echoes its payload');
      } finally {
        await direct.end();
      }
    } finally {
      const codes = await Promise.all(servers.map((s) => s.stop()));
      for (const server of servers) assert.deepEqual(errorLines(server), [], 'no error-level log line');
      assert.deepEqual(
        codes,
        servers.map(() => 0),
        'both instances shut down cleanly',
      );
    }
  });
});

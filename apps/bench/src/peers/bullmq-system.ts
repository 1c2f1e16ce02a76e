import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createPostgresBackend, Queue, runMigrations, withBackend } from 'bullmq';
import pg from 'pg';
import type { BenchPayload } from '../bench-job.js';
import type { RunningSystem, SystemContext, SystemSpec } from '../bench-system.js';
import { redisVersion } from '../redis-probe.js';
import { REPORT_PORT_VARIABLE } from '../report/report-sender.js';
import { BULLMQ_CPU_SETTINGS, BULLMQ_SETTINGS, describeBullmq, PRODUCER_POOL_MAX } from './peer-settings.js';
import { installedPackage } from './installed-package.js';
import { startWorkerGroup } from './worker-group.js';

const SCRIPT = fileURLToPath(new URL('./bullmq-worker-process.js', import.meta.url));
const VERSION = installedPackage('bullmq').version;

/** States a job is in until it completes. */
const UNFINISHED_STATES = ['wait', 'active', 'delayed', 'prioritized', 'waiting-children', 'failed'] as const;

/** Where BullMQ keeps its queues: Redis (its default) or PostgreSQL (`createPostgresBackend`). */
export type BullmqBackend = 'redis' | 'postgres';

/** What the worker process needs to reach the backend. */
export type BullmqConnection =
  | { readonly backend: 'redis'; readonly redisUrl: string }
  | { readonly backend: 'postgres'; readonly connectionString: string; readonly poolMax: number };

/** What the bench calls on a BullMQ `Queue`, whichever its backend. */
interface ProducerQueue {
  add(name: string, data: BenchPayload): Promise<unknown>;
  addBulk(jobs: { name: string; data: BenchPayload }[]): Promise<unknown>;
  getJobCounts(...types: string[]): Promise<Record<string, number>>;
  obliterate(options: { force: boolean }): Promise<void>;
  waitUntilReady(): Promise<unknown>;
  close(): Promise<void>;
}

/** BullMQ's classes on its PostgreSQL backend. */
const OnPostgres = withBackend(createPostgresBackend);

/** A producer `Queue` on `connection`; the PostgreSQL one runs BullMQ's migrations first. */
async function openQueue(name: string, connection: BullmqConnection): Promise<ProducerQueue> {
  if (connection.backend === 'redis') {
    const url = new URL(connection.redisUrl);
    return new Queue(name, { connection: { host: url.hostname, port: Number(url.port || 6379) } });
  }
  const pool = new pg.Pool({ connectionString: connection.connectionString, max: 1 });
  try {
    const client = await pool.connect();
    try {
      await runMigrations(client);
    } finally {
      client.release();
    }
  } finally {
    await pool.end();
  }
  return new OnPostgres.Queue(name, {
    connection: { connectionString: connection.connectionString, max: PRODUCER_POOL_MAX },
  });
}

async function startBullmq(
  backend: BullmqBackend,
  context: SystemContext,
  cpuBound: boolean,
): Promise<RunningSystem> {
  const settings = cpuBound ? BULLMQ_CPU_SETTINGS : BULLMQ_SETTINGS;
  // A queue of its own per start, removed on stop, so runs never see each other's jobs; on
  // PostgreSQL a fresh database too.
  const name = `nudge-bench-${randomBytes(4).toString('hex')}`;
  const connection: BullmqConnection =
    backend === 'redis'
      ? { backend, redisUrl: context.redisUrl }
      : {
          backend,
          connectionString: await context.postgres.createDatabase(),
          poolMax: settings.postgresPoolMax,
        };
  const queue = await openQueue(name, connection);
  await queue.waitUntilReady();
  const workers = await startWorkerGroup(
    `bullmq ${backend}`,
    SCRIPT,
    {
      BENCH_WORKER_CONFIG: JSON.stringify({ connection, queue: name, settings }),
      [REPORT_PORT_VARIABLE]: String(context.reportPort),
    },
    1,
  ).catch(async (error: unknown) => {
    await queue.close();
    throw error;
  });
  return {
    enqueueOne: async (kind, payload) => {
      await queue.add(kind, payload);
    },
    enqueueBatch: async (kind, payloads) => {
      await queue.addBulk(payloads.map((data) => ({ name: kind, data })));
    },
    wake: async () => undefined,
    unfinished: async () => {
      const counts = await queue.getJobCounts(...UNFINISHED_STATES);
      return Object.values(counts).reduce((sum, count) => sum + count, 0);
    },
    servicePids: () => workers.pids,
    storage:
      connection.backend === 'redis'
        ? { kind: 'redis' }
        : { kind: 'postgres', database: new URL(connection.connectionString).pathname.slice(1) },
    stop: async () => {
      await workers.stop();
      if (backend === 'redis') await queue.obliterate({ force: true });
      await queue.close();
    },
  };
}

/** BullMQ on `backend`: producer through a `Queue`, worker through a `Worker` in a child process. */
export function bullmqSystem(backend: BullmqBackend): SystemSpec {
  const on = backend === 'redis' ? 'Redis' : 'PostgreSQL';
  return {
    id: backend === 'redis' ? 'bullmq' : 'bullmq-postgres',
    label: `BullMQ ${VERSION} on ${on} (concurrency ${BULLMQ_SETTINGS.concurrency})`,
    cpuLabel: `BullMQ ${VERSION} on ${on} (sandboxed, ${BULLMQ_CPU_SETTINGS.concurrency} worker threads)`,
    version: `bullmq ${VERSION}`,
    configuration: `${describeBullmq(BULLMQ_SETTINGS, backend)}; CPU-bound jobs: ${describeBullmq(BULLMQ_CPU_SETTINGS, backend)}`,
    unavailable: async (context) =>
      backend === 'redis' && (await redisVersion(context.redisUrl)) === undefined
        ? `Redis is unreachable at ${context.redisUrl} (set BENCH_REDIS_URL)`
        : undefined,
    start: (context, options = {}) => startBullmq(backend, context, options.cpuBound ?? false),
  };
}

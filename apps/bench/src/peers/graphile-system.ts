import { fileURLToPath } from 'node:url';
import { makeWorkerUtils } from 'graphile-worker';
import type { RunningSystem, SystemSpec } from '../bench-system.js';
import { REPORT_PORT_VARIABLE } from '../report/report-sender.js';
import { peerNode } from './peer-node.js';
import {
  describeGraphile,
  GRAPHILE_CPU_SETTINGS,
  GRAPHILE_SETTINGS,
  processCount,
  PRODUCER_POOL_MAX,
} from './peer-settings.js';
import { installedPackage } from './installed-package.js';
import { startWorkerGroup } from './worker-group.js';

const SCRIPT = fileURLToPath(new URL('./graphile-worker-process.js', import.meta.url));
const VERSION = installedPackage('graphile-worker').version;

/** The worker processes' Node.js: graphile-worker 0.18 needs Node.js 22.18 or newer. */
const NODE = peerNode('graphile-worker');
const ON_NODE = NODE.ok ? `; worker processes on Node.js ${NODE.version}` : '';

/**
 * graphile-worker: producer through `WorkerUtils` in the bench process, workers through `run()` in
 * child processes (one, or one per core for CPU-bound jobs).
 */
export const graphileSystem: SystemSpec = {
  id: 'graphile-worker',
  label: `graphile-worker ${VERSION} (local queue, batched completion)`,
  cpuLabel: `graphile-worker ${VERSION} (${processCount(GRAPHILE_CPU_SETTINGS.processes)}, local queue, batched completion)`,
  version: `graphile-worker ${VERSION}`,
  configuration: `${describeGraphile(GRAPHILE_SETTINGS)}; CPU-bound jobs: ${describeGraphile(GRAPHILE_CPU_SETTINGS)}${ON_NODE}`,
  unavailable: () => Promise.resolve(NODE.ok ? undefined : NODE.reason),
  start: async (context, options = {}): Promise<RunningSystem> => {
    if (!NODE.ok) throw new Error(NODE.reason);
    const settings = options.cpuBound ? GRAPHILE_CPU_SETTINGS : GRAPHILE_SETTINGS;
    const connectionString = await context.postgres.createDatabase();
    const utils = await makeWorkerUtils({ connectionString, maxPoolSize: PRODUCER_POOL_MAX });
    await utils.migrate();
    const workers = await startWorkerGroup(
      'graphile-worker',
      SCRIPT,
      {
        BENCH_WORKER_CONFIG: JSON.stringify({ connectionString, settings }),
        [REPORT_PORT_VARIABLE]: String(context.reportPort),
      },
      settings.processes,
      { execPath: NODE.execPath },
    ).catch(async (error: unknown) => {
      await utils.release();
      throw error;
    });
    return {
      enqueueOne: async (kind, payload) => {
        await utils.addJob(kind, payload);
      },
      enqueueBatch: async (kind, payloads) => {
        await utils.addJobs(payloads.map((payload) => ({ identifier: kind, payload })));
      },
      wake: async () => undefined,
      // Completed jobs are deleted; failed ones stay until their attempts run out.
      unfinished: async () =>
        utils.withPgClient(async (client) => {
          const { rows } = await client.query<{ n: number }>(
            'SELECT count(*)::float8 AS n FROM graphile_worker._private_jobs',
          );
          return rows[0]?.n ?? 0;
        }),
      servicePids: () => workers.pids,
      storage: { kind: 'postgres', database: new URL(connectionString).pathname.slice(1) },
      stop: async () => {
        await workers.stop();
        await utils.release();
      },
    };
  },
};

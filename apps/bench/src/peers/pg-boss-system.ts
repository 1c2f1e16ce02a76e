import { fileURLToPath } from 'node:url';
import { PgBoss } from 'pg-boss';
import type { RunningSystem, SystemSpec } from '../bench-system.js';
import { REPORT_PORT_VARIABLE } from '../report/report-sender.js';
import { peerNode } from './peer-node.js';
import {
  describePgBoss,
  PG_BOSS_CPU_SETTINGS,
  PG_BOSS_SETTINGS,
  processCount,
  PRODUCER_POOL_MAX,
} from './peer-settings.js';
import { installedPackage } from './installed-package.js';
import { startWorkerGroup } from './worker-group.js';

const SCRIPT = fileURLToPath(new URL('./pg-boss-worker-process.js', import.meta.url));
const VERSION = installedPackage('pg-boss').version;

/** The worker processes' Node.js: pg-boss 12 needs Node.js 22.12 or newer. */
const NODE = peerNode('pg-boss');
const ON_NODE = NODE.ok ? `; worker processes on Node.js ${NODE.version}` : '';

/** The one queue; a job's bench kind travels in its data. */
const QUEUE = 'bench';

/**
 * pg-boss: producer through `send`/`insert` in the bench process, workers through `work()` in
 * child processes (one, or one per core for CPU-bound jobs).
 */
export const pgBossSystem: SystemSpec = {
  id: 'pg-boss',
  label: `pg-boss ${VERSION} (${processCount(PG_BOSS_SETTINGS.processes)}, LISTEN/NOTIFY, batches of ${PG_BOSS_SETTINGS.batchSize})`,
  cpuLabel: `pg-boss ${VERSION} (${processCount(PG_BOSS_CPU_SETTINGS.processes)})`,
  version: `pg-boss ${VERSION}`,
  configuration: `${describePgBoss(PG_BOSS_SETTINGS)}; CPU-bound jobs: ${describePgBoss(PG_BOSS_CPU_SETTINGS)}${ON_NODE}`,
  unavailable: () => Promise.resolve(NODE.ok ? undefined : NODE.reason),
  start: async (context, options = {}): Promise<RunningSystem> => {
    if (!NODE.ok) throw new Error(NODE.reason);
    const settings = options.cpuBound ? PG_BOSS_CPU_SETTINGS : PG_BOSS_SETTINGS;
    const connectionString = await context.postgres.createDatabase();
    // The producer installs the schema; it runs no maintenance and no workers.
    const boss = new PgBoss({
      connectionString,
      max: PRODUCER_POOL_MAX,
      supervise: false,
      schedule: false,
    });
    boss.on('error', (error) => console.error(`  [pg-boss client] ${error.message}`));
    await boss.start();
    await boss.createQueue(QUEUE, { notify: true });
    const workers = await startWorkerGroup(
      'pg-boss',
      SCRIPT,
      {
        BENCH_WORKER_CONFIG: JSON.stringify({ connectionString, queue: QUEUE, settings }),
        [REPORT_PORT_VARIABLE]: String(context.reportPort),
      },
      settings.processes,
      { execPath: NODE.execPath },
    ).catch(async (error: unknown) => {
      await boss.stop({ graceful: false });
      throw error;
    });
    return {
      enqueueOne: async (kind, payload) => {
        await boss.send(QUEUE, { ...payload, kind });
      },
      enqueueBatch: async (kind, payloads) => {
        await boss.insert(
          QUEUE,
          payloads.map((payload) => ({ data: { ...payload, kind } })),
        );
      },
      wake: async () => undefined,
      unfinished: async () => {
        const { rows } = await boss
          .getDb()
          .executeSql(
            "SELECT count(*)::float8 AS n FROM pgboss.job WHERE name = $1 AND state <> 'completed'",
            [QUEUE],
          );
        return (rows[0] as { n: number } | undefined)?.n ?? 0;
      },
      servicePids: () => workers.pids,
      storage: { kind: 'postgres', database: new URL(connectionString).pathname.slice(1) },
      stop: async () => {
        await workers.stop();
        await boss.stop({ graceful: false });
      },
    };
  },
};

import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import PgBoss from 'pg-boss';
import type { RunningSystem, SystemSpec } from '../bench-system.js';
import { REPORT_PORT_VARIABLE } from '../report/report-sender.js';
import { describePeerSettings } from './peer-settings.js';
import { startWorkerProcess } from './worker-process.js';

const SCRIPT = fileURLToPath(new URL('./pg-boss-worker-process.js', import.meta.url));
const VERSION = (createRequire(import.meta.url)('pg-boss/package.json') as { version: string }).version;

/** The one queue; a job's bench kind travels in its data. */
const QUEUE = 'bench';

/** pg-boss: producer through `send`/`insert`, worker through `work()` in a child process. */
export const pgBossSystem: SystemSpec = {
  id: 'pg-boss',
  label: 'pg-boss',
  version: `pg-boss ${VERSION}`,
  configuration: describePeerSettings()['pg-boss'],
  start: async (context): Promise<RunningSystem> => {
    const connectionString = await context.postgres.createDatabase();
    // The producer installs the schema; it runs no maintenance and no workers.
    const boss = new PgBoss({ connectionString, max: 2, supervise: false, schedule: false });
    boss.on('error', (error) => console.error(`  [pg-boss client] ${error.message}`));
    await boss.start();
    await boss.createQueue(QUEUE);
    const worker = await startWorkerProcess('pg-boss', SCRIPT, {
      BENCH_WORKER_CONFIG: JSON.stringify({ connectionString, queue: QUEUE }),
      [REPORT_PORT_VARIABLE]: String(context.reportPort),
    }).catch(async (error: unknown) => {
      await boss.stop({ graceful: false });
      throw error;
    });
    return {
      enqueueOne: async (kind, payload) => {
        await boss.send(QUEUE, { ...payload, kind });
      },
      enqueueBatch: async (kind, payloads) => {
        await boss.insert(payloads.map((payload) => ({ name: QUEUE, data: { ...payload, kind } })));
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
      stop: async () => {
        await worker.stop();
        await boss.stop({ graceful: false, wait: true });
      },
    };
  },
};

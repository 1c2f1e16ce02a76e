import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { makeWorkerUtils } from 'graphile-worker';
import type { RunningSystem, SystemSpec } from '../bench-system.js';
import { REPORT_PORT_VARIABLE } from '../report/report-sender.js';
import { describePeerSettings } from './peer-settings.js';
import { startWorkerProcess } from './worker-process.js';

const SCRIPT = fileURLToPath(new URL('./graphile-worker-process.js', import.meta.url));
const VERSION = (createRequire(import.meta.url)('graphile-worker/package.json') as { version: string })
  .version;

/** graphile-worker: producer through `WorkerUtils`, worker through `run()` in a child process. */
export const graphileSystem: SystemSpec = {
  id: 'graphile-worker',
  label: 'graphile-worker',
  version: `graphile-worker ${VERSION}`,
  configuration: describePeerSettings()['graphile-worker'],
  start: async (context): Promise<RunningSystem> => {
    const connectionString = await context.postgres.createDatabase();
    const utils = await makeWorkerUtils({ connectionString, maxPoolSize: 2 });
    await utils.migrate();
    const worker = await startWorkerProcess('graphile-worker', SCRIPT, {
      BENCH_WORKER_CONFIG: JSON.stringify({ connectionString }),
      [REPORT_PORT_VARIABLE]: String(context.reportPort),
    }).catch(async (error: unknown) => {
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
      stop: async () => {
        await worker.stop();
        await utils.release();
      },
    };
  },
};

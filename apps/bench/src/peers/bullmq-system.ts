import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import type { RunningSystem, SystemSpec } from '../bench-system.js';
import { REPORT_PORT_VARIABLE } from '../report/report-sender.js';
import { describePeerSettings } from './peer-settings.js';
import { startWorkerProcess } from './worker-process.js';

const SCRIPT = fileURLToPath(new URL('./bullmq-worker-process.js', import.meta.url));
const VERSION = (createRequire(import.meta.url)('bullmq/package.json') as { version: string }).version;

/** States a job is in until it completes. */
const UNFINISHED_STATES = ['wait', 'active', 'delayed', 'prioritized', 'waiting-children', 'failed'] as const;

/** BullMQ: producer through a `Queue`, worker through a `Worker` in a child process. */
export const bullmqSystem: SystemSpec = {
  id: 'bullmq',
  label: 'BullMQ',
  version: `bullmq ${VERSION}`,
  configuration: describePeerSettings().bullmq,
  start: async (context): Promise<RunningSystem> => {
    // A queue of its own per start, removed on stop, so runs never see each other's jobs.
    const name = `nudge-bench-${randomBytes(4).toString('hex')}`;
    const url = new URL(context.redisUrl);
    const queue = new Queue(name, { connection: { host: url.hostname, port: Number(url.port || 6379) } });
    await queue.waitUntilReady();
    const worker = await startWorkerProcess('bullmq', SCRIPT, {
      BENCH_WORKER_CONFIG: JSON.stringify({ redisUrl: context.redisUrl, queue: name }),
      [REPORT_PORT_VARIABLE]: String(context.reportPort),
    }).catch(async (error: unknown) => {
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
      stop: async () => {
        await worker.stop();
        await queue.obliterate({ force: true });
        await queue.close();
      },
    };
  },
};

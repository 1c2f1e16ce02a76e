// The BullMQ worker process the bench starts (see bullmq-system.ts).
import { fileURLToPath } from 'node:url';
import { createPostgresBackend, Worker, withBackend } from 'bullmq';
import { runBenchJob, type BenchPayload } from '../bench-job.js';
import type { BullmqConnection } from './bullmq-system.js';
import type { BullmqSettings } from './peer-settings.js';
import { announceReady, workerConfig } from './worker-process.js';

const { connection, queue, settings } = workerConfig<{
  connection: BullmqConnection;
  queue: string;
  settings: BullmqSettings;
}>();

/** The processor file sandboxed processors run (in worker threads). */
const SANDBOXED = fileURLToPath(new URL('./bullmq-sandboxed-processor.js', import.meta.url));

const options = { concurrency: settings.concurrency, useWorkerThreads: settings.sandboxed };
const processor = settings.sandboxed
  ? SANDBOXED
  : async (job: { name: string; data: BenchPayload }): Promise<void> => runBenchJob(job.name, job.data);

/** What the process calls on its BullMQ `Worker`, whichever its backend. */
interface BenchWorker {
  on(event: 'error', listener: (error: Error) => void): unknown;
  waitUntilReady(): Promise<unknown>;
  close(): Promise<void>;
}

let worker: BenchWorker;
if (connection.backend === 'redis') {
  const url = new URL(connection.redisUrl);
  worker = new Worker<BenchPayload>(queue, processor, {
    ...options,
    connection: { host: url.hostname, port: Number(url.port || 6379), maxRetriesPerRequest: null },
  });
} else {
  const OnPostgres = withBackend(createPostgresBackend);
  worker = new OnPostgres.Worker<BenchPayload>(queue, processor, {
    ...options,
    connection: { connectionString: connection.connectionString, max: connection.poolMax },
  });
}
worker.on('error', (error) => console.error(`bullmq: ${error.message}`));
await worker.waitUntilReady();
announceReady(() => worker.close());

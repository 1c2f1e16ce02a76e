// The BullMQ worker process the bench starts (see bullmq-system.ts).
import { Worker } from 'bullmq';
import { runBenchJob, type BenchPayload } from '../bench-job.js';
import { BULLMQ_SETTINGS } from './peer-settings.js';
import { announceReady, workerConfig } from './worker-process.js';

const { redisUrl, queue } = workerConfig<{ redisUrl: string; queue: string }>();
const url = new URL(redisUrl);

const worker = new Worker<BenchPayload>(queue, async (job) => runBenchJob(job.name, job.data), {
  connection: { host: url.hostname, port: Number(url.port || 6379), maxRetriesPerRequest: null },
  concurrency: BULLMQ_SETTINGS.concurrency,
});
worker.on('error', (error) => console.error(`bullmq: ${error.message}`));
await worker.waitUntilReady();
announceReady(() => worker.close());

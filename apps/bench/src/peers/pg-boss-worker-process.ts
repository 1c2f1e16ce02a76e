// The pg-boss worker process the bench starts (see pg-boss-system.ts).
import { PgBoss } from 'pg-boss';
import { runBenchJob, type BenchPayload } from '../bench-job.js';
import type { PgBossSettings } from './peer-settings.js';
import { announceReady, workerConfig } from './worker-process.js';

const { connectionString, queue, settings } = workerConfig<{
  connectionString: string;
  queue: string;
  settings: PgBossSettings;
}>();

const boss = new PgBoss({
  connectionString,
  max: settings.maxConnections,
  migrate: false,
  schedule: false,
  useListenNotify: true,
});
boss.on('error', (error) => console.error(`pg-boss: ${error.message}`));
boss.on('warning', (warning) => console.error(`pg-boss warning: ${JSON.stringify(warning)}`));
await boss.start();
await boss.work<BenchPayload & { kind: string }>(
  queue,
  {
    batchSize: settings.batchSize,
    localConcurrency: settings.localConcurrency,
    pollingIntervalSeconds: settings.pollingIntervalSeconds,
    burstWhenBatchFull: settings.burstWhenBatchFull,
  },
  async (jobs) => {
    await Promise.all(jobs.map((job) => runBenchJob(job.data.kind, job.data)));
  },
);
announceReady(() => boss.stop({ graceful: true, timeout: 20_000 }));

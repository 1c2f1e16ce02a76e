// The pg-boss worker process the bench starts (see pg-boss-system.ts).
import PgBoss from 'pg-boss';
import { runBenchJob, type BenchPayload } from '../bench-job.js';
import { PG_BOSS_SETTINGS } from './peer-settings.js';
import { announceReady, workerConfig } from './worker-process.js';

const { connectionString, queue } = workerConfig<{ connectionString: string; queue: string }>();

const boss = new PgBoss({
  connectionString,
  max: PG_BOSS_SETTINGS.maxConnections,
  migrate: false,
  schedule: false,
});
boss.on('error', (error) => console.error(`pg-boss: ${error.message}`));
await boss.start();
for (let i = 0; i < PG_BOSS_SETTINGS.workers; i += 1) {
  await boss.work<BenchPayload & { kind: string }>(
    queue,
    {
      batchSize: PG_BOSS_SETTINGS.batchSize,
      pollingIntervalSeconds: PG_BOSS_SETTINGS.pollingIntervalSeconds,
    },
    async (jobs) => {
      await Promise.all(jobs.map((job) => runBenchJob(job.data.kind, job.data)));
    },
  );
}
announceReady(() => boss.stop({ graceful: true, wait: true, timeout: 20_000 }));

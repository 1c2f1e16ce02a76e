// The graphile-worker worker process the bench starts (see graphile-system.ts).
import { Logger, run, type Task } from 'graphile-worker';
import { BENCH_KINDS, runBenchJob, type BenchPayload } from '../bench-job.js';
import { GRAPHILE_SETTINGS } from './peer-settings.js';
import { announceReady, workerConfig } from './worker-process.js';

const { connectionString } = workerConfig<{ connectionString: string }>();

/** Prints warnings and errors only: at `info` graphile-worker logs a line per completed job. */
const quietLogger = new Logger(() => (level, message) => {
  if ((level as string) === 'error' || (level as string) === 'warning') console.error(`${level}: ${message}`);
});

const taskList: Record<string, Task> = {};
for (const kind of BENCH_KINDS) taskList[kind] = (payload) => runBenchJob(kind, payload as BenchPayload);

const runner = await run({
  taskList,
  noHandleSignals: true,
  logger: quietLogger,
  preset: {
    worker: {
      connectionString,
      concurrentJobs: GRAPHILE_SETTINGS.concurrentJobs,
      maxPoolSize: GRAPHILE_SETTINGS.maxPoolSize,
      pollInterval: GRAPHILE_SETTINGS.pollIntervalMs,
      localQueue: { size: GRAPHILE_SETTINGS.localQueueSize },
      completeJobBatchDelay: GRAPHILE_SETTINGS.completeJobBatchDelayMs,
      failJobBatchDelay: GRAPHILE_SETTINGS.failJobBatchDelayMs,
    },
  },
});
announceReady(() => runner.stop());

// The graphile-worker worker process the bench starts (see graphile-system.ts).
import { Logger, run, type Task } from 'graphile-worker';
import { BENCH_KINDS, runBenchJob, type BenchPayload } from '../bench-job.js';
import type { GraphileSettings } from './peer-settings.js';
import { announceReady, workerConfig } from './worker-process.js';

const { connectionString, settings } = workerConfig<{
  connectionString: string;
  settings: GraphileSettings;
}>();

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
      concurrentJobs: settings.concurrentJobs,
      maxPoolSize: settings.maxPoolSize,
      pollInterval: settings.pollIntervalMs,
      localQueue: { size: settings.localQueueSize },
      completeJobBatchDelay: settings.completeJobBatchDelayMs,
      failJobBatchDelay: settings.failJobBatchDelayMs,
    },
  },
});
announceReady(() => runner.stop());

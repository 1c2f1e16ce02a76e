// The configuration of every peer, in one place, printed with the results. Each is the fastest
// its documentation describes, for many small jobs and for CPU-bound jobs.
import { availableParallelism } from 'node:os';

/**
 * PostgreSQL connections of each peer's producer in the bench process (node-postgres's default
 * pool size, as nudge's producer pool): the steady scenario keeps many single enqueues in flight.
 */
export const PRODUCER_POOL_MAX = 10;

/** graphile-worker's `preset.worker` options the bench sets. */
export interface GraphileSettings {
  /** `concurrentJobs`: jobs running at once in one Node process. */
  readonly concurrentJobs: number;
  /** `localQueue.size`: jobs fetched (and locked) per query into the local queue. */
  readonly localQueueSize: number;
  /** `completeJobBatchDelay`, in ms: 0 batches completions made in the same tick. */
  readonly completeJobBatchDelayMs: number;
  /** `failJobBatchDelay`, in ms: as above for failures. */
  readonly failJobBatchDelayMs: number;
  /** `maxPoolSize`: PostgreSQL connections per process. */
  readonly maxPoolSize: number;
  /** `pollInterval`, in ms. */
  readonly pollIntervalMs: number;
  /** Worker processes on the one database. */
  readonly processes: number;
}

/**
 * graphile-worker 0.18 for many small jobs: one process, jobs fetched in batches into its local
 * queue and completions batched, as its performance guide describes
 * (https://worker.graphile.org/docs/performance#batching); new jobs wake the worker through
 * LISTEN/NOTIFY, so `pollInterval` (its default) only matters for future jobs.
 */
export const GRAPHILE_SETTINGS: GraphileSettings = {
  concurrentJobs: 32,
  localQueueSize: 500,
  completeJobBatchDelayMs: 0,
  failJobBatchDelayMs: 0,
  // Its docs advise `concurrentJobs + 2`.
  maxPoolSize: 34,
  pollIntervalMs: 2000,
  processes: 1,
};

/**
 * graphile-worker 0.18 for CPU-bound jobs: one process per core, since a task blocks its process's
 * event loop. Each runs one job at a time with a local queue of `concurrentJobs + 1` (the guide's
 * starting point), so no process locks jobs another one could run.
 */
export const GRAPHILE_CPU_SETTINGS: GraphileSettings = {
  ...GRAPHILE_SETTINGS,
  concurrentJobs: 1,
  localQueueSize: 2,
  // Its docs: 10 or `concurrentJobs + 2`, whichever is larger.
  maxPoolSize: 10,
  processes: availableParallelism(),
};

/** pg-boss's options the bench sets: `work()` options and the worker process's own. */
export interface PgBossSettings {
  /** `batchSize`: jobs per fetch, handed to the handler as one array. */
  readonly batchSize: number;
  /** `localConcurrency`: fetch loops of the one `work()` in each process. */
  readonly localConcurrency: number;
  /** `pollingIntervalSeconds`: the minimum pg-boss accepts (0.5 s). */
  readonly pollingIntervalSeconds: number;
  /** `burstWhenBatchFull`: fetch again at once while fetches come back full. */
  readonly burstWhenBatchFull: boolean;
  /** `max`: PostgreSQL connections of each worker process. */
  readonly maxConnections: number;
  /** Worker processes on the one database. */
  readonly processes: number;
}

/**
 * pg-boss 12 for many small jobs: the queue is created with `notify: true` and every instance with
 * `useListenNotify: true`, so a new job wakes the workers at once (polling stays as a backstop);
 * batches of 500 with burst fetching while they come back full; four fetch loops in one process.
 */
export const PG_BOSS_SETTINGS: PgBossSettings = {
  batchSize: 500,
  localConcurrency: 4,
  pollingIntervalSeconds: 0.5,
  burstWhenBatchFull: true,
  maxConnections: 10,
  processes: 1,
};

/**
 * pg-boss 12 for CPU-bound jobs: one process per core, each fetching two jobs at a time (a batch of
 * one never bursts) so no process holds jobs another one could run.
 */
export const PG_BOSS_CPU_SETTINGS: PgBossSettings = {
  ...PG_BOSS_SETTINGS,
  batchSize: 2,
  localConcurrency: 1,
  processes: availableParallelism(),
};

/** BullMQ's `Worker` options the bench sets. */
export interface BullmqSettings {
  /** `concurrency`: jobs at once in the one worker process. */
  readonly concurrency: number;
  /** Run the processor as a sandboxed file in worker threads (`useWorkerThreads`). */
  readonly sandboxed: boolean;
  /** PostgreSQL backend only: the `max` of its `pg.Pool` (its `LISTEN` client comes on top). */
  readonly postgresPoolMax: number;
}

/**
 * BullMQ 6 for many small jobs: one `Worker` with high `concurrency`; an idle worker blocks on
 * Redis (`BZPOPMIN`) or on PostgreSQL's `LISTEN`, so a new job wakes it at once. Completed jobs are
 * kept (the default), so the bench can count them.
 */
export const BULLMQ_SETTINGS: BullmqSettings = { concurrency: 50, sandboxed: false, postgresPoolMax: 20 };

/**
 * BullMQ 6 for CPU-bound jobs: a sandboxed processor file in worker threads (`useWorkerThreads`),
 * `concurrency` one per core, as its guide on CPU-intensive jobs describes
 * (https://docs.bullmq.io/guide/workers/sandboxed-processors).
 */
export const BULLMQ_CPU_SETTINGS: BullmqSettings = {
  ...BULLMQ_SETTINGS,
  concurrency: availableParallelism(),
  sandboxed: true,
};

/** `2 processes` or `1 process`. */
export function processCount(processes: number): string {
  return `${processes} ${processes === 1 ? 'process' : 'processes'}`;
}

/** The full configuration of graphile-worker, for the output. */
export function describeGraphile(g: GraphileSettings): string {
  return `${processCount(g.processes)}, each with preset.worker: concurrentJobs ${g.concurrentJobs}, localQueue { size: ${g.localQueueSize} }, completeJobBatchDelay ${g.completeJobBatchDelayMs}, failJobBatchDelay ${g.failJobBatchDelayMs}, maxPoolSize ${g.maxPoolSize}, pollInterval ${g.pollIntervalMs} ms; wake-up: LISTEN/NOTIFY; logger: warnings and errors only`;
}

/** The full configuration of pg-boss, for the output. */
export function describePgBoss(b: PgBossSettings): string {
  return `${processCount(b.processes)}, each with work() { batchSize: ${b.batchSize}, localConcurrency: ${b.localConcurrency}, pollingIntervalSeconds: ${b.pollingIntervalSeconds}, burstWhenBatchFull: ${b.burstWhenBatchFull} } and max ${b.maxConnections} connections; wake-up: LISTEN/NOTIFY (useListenNotify, queue notify)`;
}

/** The full configuration of BullMQ, for the output. */
export function describeBullmq(s: BullmqSettings, backend: 'redis' | 'postgres'): string {
  const processor = s.sandboxed ? 'sandboxed processor file, useWorkerThreads' : 'inline processor';
  const wake =
    backend === 'redis' ? 'blocking wait on Redis' : `LISTEN/NOTIFY; pg.Pool max ${s.postgresPoolMax}`;
  return `1 process, Worker concurrency ${s.concurrency}, ${processor}; wake-up: ${wake}; completed jobs kept`;
}

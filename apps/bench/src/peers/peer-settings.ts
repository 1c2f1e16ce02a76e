// The configuration of every peer, in one place, printed with the results. Each is the fastest
// its documentation describes for many small jobs on one instance.

/**
 * graphile-worker 0.17 (`preset.worker` options): jobs are fetched in batches into a local queue
 * and completions are batched, as its performance guide describes; new jobs wake the worker
 * through LISTEN/NOTIFY, so `pollInterval` only matters for future jobs.
 */
export const GRAPHILE_SETTINGS = {
  /** `concurrentJobs`: jobs running at once in the one Node process. */
  concurrentJobs: 32,
  /** `localQueue.size`: jobs fetched (and locked) per query. */
  localQueueSize: 500,
  /** `completeJobBatchDelay`: 0 ms batches completions made in the same tick. */
  completeJobBatchDelayMs: 0,
  /** `failJobBatchDelay`: as above for failures. */
  failJobBatchDelayMs: 0,
  /** `maxPoolSize`: PostgreSQL connections; its docs advise `concurrentJobs + 2`. */
  maxPoolSize: 34,
  /** `pollInterval` (default), in ms. */
  pollIntervalMs: 2000,
} as const;

/**
 * pg-boss 10: `work()` fetches `batchSize` jobs per poll and hands them to the handler as one
 * array; a worker whose fetch came back sooner than the polling interval sleeps out the rest, so
 * several `work()` registrations on the queue (the way v10 replaces `teamSize`) keep fetching
 * while one sleeps. pg-boss has no push wake-up across processes: workers poll.
 */
export const PG_BOSS_SETTINGS = {
  /** `batchSize`: jobs per fetch. */
  batchSize: 500,
  /** `pollingIntervalSeconds`: the minimum pg-boss 10 accepts (0.5 s). */
  pollingIntervalSeconds: 0.5,
  /** `work()` registrations on the queue in the worker process. */
  workers: 4,
  /** `max`: PostgreSQL connections of the worker process. */
  maxConnections: 10,
} as const;

/**
 * BullMQ 6: one `Worker` with high `concurrency`; an idle worker blocks on Redis (`BZPOPMIN` on
 * the queue's marker), so a new job wakes it at once. Completed jobs are kept (the default), so
 * the bench can count them in Redis.
 */
export const BULLMQ_SETTINGS = {
  /** `concurrency`: jobs at once in the one Node process. */
  concurrency: 50,
} as const;

/** One line per peer for the output. */
export function describePeerSettings(): Record<'graphile-worker' | 'pg-boss' | 'bullmq', string> {
  const g = GRAPHILE_SETTINGS;
  const b = PG_BOSS_SETTINGS;
  return {
    'graphile-worker': `preset.worker: concurrentJobs ${g.concurrentJobs}, localQueue { size: ${g.localQueueSize} }, completeJobBatchDelay ${g.completeJobBatchDelayMs}, failJobBatchDelay ${g.failJobBatchDelayMs}, maxPoolSize ${g.maxPoolSize}, pollInterval ${g.pollIntervalMs} ms; wake-up: LISTEN/NOTIFY; logger: warnings and errors only`,
    'pg-boss': `${b.workers} × work() with batchSize ${b.batchSize}, pollingIntervalSeconds ${b.pollingIntervalSeconds} (the minimum); max ${b.maxConnections} connections; wake-up: polling`,
    bullmq: `Worker concurrency ${BULLMQ_SETTINGS.concurrency}; wake-up: blocking wait on Redis; completed jobs kept`,
  };
}

import { Gauge, type Registry } from 'prom-client';
import type { QueueState } from '@nudge/store';

/**
 * The gauges of queues with a record (paused, resumed or given limits; `PATCH /queues/:name`),
 * read from the database, so every instance shows the same cluster-wide values:
 *
 * - `nudge_queue_running{queue}`: the queue's jobs `RUNNING` on every instance;
 * - `nudge_queue_concurrency_limit{queue}`: its cluster-wide `concurrency`, for queues that have
 *   one (`nudge_queue_running / nudge_queue_concurrency_limit` is how full the queue is);
 * - `nudge_queue_key_concurrency_limit{queue}` and `nudge_queue_rate_limit{queue}` (starts per
 *   second: `limit / intervalMs × 1000`), for queues that have them.
 *
 * `states` returns the queues as last read (by `RecordedQueuePins`, at most once per
 * `statusCountMaxAgeMs`, with the scrape), so a scrape adds no query of its own; a queue whose
 * record no longer reads loses its series.
 */
export function registerQueueLimitMetrics(registry: Registry, states: () => readonly QueueState[]): void {
  const registers = [registry];
  const gauge = (name: string, help: string, value: (queue: QueueState) => number | null) =>
    new Gauge({
      name,
      help,
      labelNames: ['queue'],
      registers,
      collect() {
        this.reset();
        for (const queue of states()) {
          const v = value(queue);
          if (v !== null) this.set({ queue: queue.name }, v);
        }
      },
    });
  gauge(
    'nudge_queue_running',
    "Jobs RUNNING on every instance, per queue with a record (paused, resumed or given limits), from the database: the cluster-wide count a queue's concurrency limit holds.",
    (queue) => queue.running,
  );
  gauge(
    'nudge_queue_concurrency_limit',
    "A queue's cluster-wide concurrency limit (most jobs RUNNING at once), for queues that have one.",
    (queue) => queue.concurrency,
  );
  gauge(
    'nudge_queue_key_concurrency_limit',
    "A queue's keyConcurrency limit (most jobs of one concurrencyKey RUNNING at once), for queues that have one.",
    (queue) => queue.keyConcurrency,
  );
  gauge(
    'nudge_queue_rate_limit',
    "A queue's rate limit in starts per second (limit / intervalMs × 1000), for queues that have one.",
    (queue) =>
      queue.rateLimit === null ? null : (queue.rateLimit.limit / queue.rateLimit.intervalMs) * 1000,
  );
}

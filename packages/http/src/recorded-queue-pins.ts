import type { QueueState, Store } from '@nudge/store';
import type { LabelValues } from './label-values.js';

/** Most queue records read for pins: the first ones by name (only `admin` keys create records). */
export const MAX_RECORDED_QUEUE_PINS = 1000;

/**
 * Pins the queues recorded in `nudge_queues` (paused, resumed or given limits, on any instance) so
 * they keep series of their own past the queue label cap. Read at most once per `maxAgeMs`, from a
 * scrape; scrapes arriving while a read runs share it. The last read (their limits and counts of
 * unfinished jobs, cluster-wide) is kept as {@link RecordedQueuePins.states} for the queue gauges.
 */
export class RecordedQueuePins {
  readonly #store: Pick<Store, 'listQueues'>;
  readonly #queues: LabelValues;
  readonly #maxAgeMs: number;
  #readAt = Number.NEGATIVE_INFINITY;
  #running: Promise<void> | undefined;
  #states: readonly QueueState[] = [];

  /** @param maxAgeMs - how long a read is reused, in ms */
  constructor(store: Pick<Store, 'listQueues'>, queues: LabelValues, maxAgeMs: number) {
    this.#store = store;
    this.#queues = queues;
    this.#maxAgeMs = maxAgeMs;
  }

  /** The recorded queues as last read, by name; empty before the first read. */
  get states(): readonly QueueState[] {
    return this.#states;
  }

  /** Reads the records again when the last read is older than `maxAgeMs`, and pins them. */
  refresh(): Promise<void> {
    if (performance.now() - this.#readAt < this.#maxAgeMs) return Promise.resolve();
    this.#running ??= (async () => {
      try {
        const records = await this.#store.listQueues({ recordedOnly: true, limit: MAX_RECORDED_QUEUE_PINS });
        this.#queues.pin(records.map((queue) => queue.name));
        this.#states = records;
        this.#readAt = performance.now();
      } finally {
        this.#running = undefined;
      }
    })();
    return this.#running;
  }
}

import type { Counter, Histogram } from 'prom-client';

/** A metric labelled by `kind` and `queue`, such as `nudge_jobs_succeeded_total`. */
type KindQueueMetric = Counter<'kind' | 'queue'> | Histogram<'kind' | 'queue'>;

/** The child of a metric for one kind and queue: what `inc` or `observe` is called on. */
type ChildOf<M extends KindQueueMetric> = ReturnType<M['labels']>;

/**
 * The children of a metric by kind, then queue, kept once looked up: counting a job is two map
 * reads and an increment, with no label object or series key built per job (prom-client builds
 * both on every `inc({kind, queue})`).
 */
export class KindQueueSeries<M extends KindQueueMetric> {
  readonly #metric: M;
  readonly #children = new Map<string, Map<string, ChildOf<M>>>();

  constructor(metric: M) {
    this.#metric = metric;
  }

  /** The series of `kind` and `queue`. */
  of(kind: string, queue: string): ChildOf<M> {
    let byQueue = this.#children.get(kind);
    if (!byQueue) {
      byQueue = new Map();
      this.#children.set(kind, byQueue);
    }
    const known = byQueue.get(queue);
    if (known !== undefined) return known;
    const child = this.#metric.labels(kind, queue) as ChildOf<M>;
    byQueue.set(queue, child);
    return child;
  }
}

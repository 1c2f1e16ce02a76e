import type { Counter, Histogram } from 'prom-client';
import type { LabelValues } from './label-values.js';

/** A metric labelled by `kind` and `queue`, such as `nudge_jobs_succeeded_total`. */
type KindQueueMetric = Counter<'kind' | 'queue'> | Histogram<'kind' | 'queue'>;

/** The child of a metric for one kind and queue: what `inc` or `observe` is called on. */
type ChildOf<M extends KindQueueMetric> = ReturnType<M['labels']>;

/** Which kinds and queues get series of their own; shared by every metric of an instance. */
export interface KindQueueLabels {
  readonly kinds: LabelValues;
  readonly queues: LabelValues;
}

/**
 * The children of a metric by kind, then queue, kept once looked up: counting a job is two map
 * reads and an increment, with no label object or series key built per job (prom-client builds
 * both on every `inc({kind, queue})`). A kind or queue past its {@link LabelValues} cap is counted
 * as `(other)`, so the children, and the series a scrape writes, are bounded; one that loses its
 * series at a ranking has its series removed.
 */
export class KindQueueSeries<M extends KindQueueMetric> {
  readonly #metric: M;
  readonly #labels: KindQueueLabels;
  readonly #children = new Map<string, Map<string, ChildOf<M>>>();

  constructor(metric: M, labels: KindQueueLabels) {
    this.#metric = metric;
    this.#labels = labels;
    // A value that lost its series at a ranking: its children go, and it is looked up again.
    labels.kinds.onDemoted((kinds) => {
      for (const kind of kinds) {
        for (const queue of this.#children.get(kind)?.keys() ?? []) this.#metric.remove(kind, queue);
        this.#children.delete(kind);
      }
    });
    labels.queues.onDemoted((queues) => {
      for (const [kind, byQueue] of this.#children) {
        for (const queue of queues) {
          if (byQueue.delete(queue)) this.#metric.remove(kind, queue);
        }
      }
    });
  }

  /** The series of `kind` and `queue`, or of `(other)` in place of either past its cap. */
  of(kind: string, queue: string): ChildOf<M> {
    // Only admitted values are keys, so a flood of names past the cap adds nothing here.
    const known = this.#children.get(kind)?.get(queue);
    if (known !== undefined) return known;
    const labelKind = this.#labels.kinds.of(kind);
    const labelQueue = this.#labels.queues.of(queue);
    let byQueue = this.#children.get(labelKind);
    if (!byQueue) {
      byQueue = new Map();
      this.#children.set(labelKind, byQueue);
    }
    const child = byQueue.get(labelQueue) ?? (this.#metric.labels(labelKind, labelQueue) as ChildOf<M>);
    byQueue.set(labelQueue, child);
    return child;
  }
}

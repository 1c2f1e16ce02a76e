import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { JOB_STATUSES } from '@nudge/core';
import type { Engine, EngineEvents } from '@nudge/engine';
import { ISOLATED_WRITE_OPERATIONS, type EnqueuedJob, type Store } from '@nudge/store';
import { DEFAULT_STATUS_COUNT_MAX_AGE_MS, JobStatusCounts } from './job-status-counts.js';
import { registerDurableStepMetrics } from './durable-step-metrics.js';
import { registerEngineMetrics, type EngineMetricsContext } from './engine-metrics.js';
import { KindQueueSeries, type KindQueueLabels } from './kind-queue-series.js';
import { LABEL_RERANK_MS, LabelValues } from './label-values.js';
import { registerQueueLimitMetrics } from './queue-limit-metrics.js';
import { RecordedQueuePins } from './recorded-queue-pins.js';

/**
 * What the metrics read from an engine: its events, its slots and its claim-request counts, and
 * its kinds when it has them (each keeps series of its own).
 */
export type MetricsEngine = Pick<Engine, 'on' | 'off' | 'slots' | 'claimRequests'> &
  Partial<Pick<Engine, 'kinds'>>;

import { DEFAULT_METRICS_MAX_KINDS, DEFAULT_METRICS_MAX_QUEUES } from './http-defaults.js';

export { DEFAULT_METRICS_MAX_KINDS, DEFAULT_METRICS_MAX_QUEUES };

/** Options of {@link NudgeMetrics}. */
export interface NudgeMetricsOptions {
  /**
   * Where `nudge_jobs{status}` is counted, whose isolated writes `nudge_isolated_writes_total`
   * counts (when it has `onIsolatedWrite`), and whose queue records keep series of their own
   * (when it has `listQueues`).
   */
  readonly store: Pick<Store, 'countByStatus'> & Partial<Pick<Store, 'onIsolatedWrite' | 'listQueues'>>;
  /** The engine whose events are counted; without one, only the HTTP and store metrics exist. */
  readonly engine?: MetricsEngine;
  /**
   * How long a count of jobs by status is reused, in ms (see {@link JobStatusCounts}).
   * @defaultValue 15000
   */
  readonly statusCountMaxAgeMs?: number;
  /** Add Node's process metrics (`process_*`, `nodejs_*`). @defaultValue true */
  readonly processMetrics?: boolean;
  /**
   * Queues that always have series of their own: those the instance is configured to serve
   * (`*` means none in particular). Queues recorded in `nudge_queues` (paused, resumed or given
   * limits) have them too, read with the status counts (up to 1,000).
   * @defaultValue []
   */
  readonly queues?: readonly string[];
  /**
   * Most other queues with series of their own: the first counted, then, at a scrape at most every
   * {@link LABEL_RERANK_MS}, the busiest since the last ranking; jobs of any further queue are
   * counted under `queue="(other)"`. Bounds the series of every `kind`/`queue` metric.
   * @defaultValue {@link DEFAULT_METRICS_MAX_QUEUES} (100)
   */
  readonly maxQueueLabels?: number;
  /** A steady clock in ms, for the ranking's interval (tests pass their own). @defaultValue performance.now */
  readonly clock?: () => number;
  /**
   * Most kinds, besides the engine's own, with series of their own; further kinds are counted
   * under `kind="(other)"`.
   * @defaultValue {@link DEFAULT_METRICS_MAX_KINDS} (100)
   */
  readonly maxKindLabels?: number;
}

const KIND_QUEUE = ['kind', 'queue'] as const;

/**
 * nudge's Prometheus metrics, in a registry of their own (never prom-client's global one, so one
 * process can hold several apps): job counters by kind and queue and histograms fed by the
 * engine's events (an increment or an observation per event, on a series looked up once), gauges
 * of slots and claim requests read at scrape time, jobs by status counted through a reused query,
 * and Node's process metrics. `docs/reference/metrics.md` lists every metric.
 *
 * Series by `kind` and `queue` are bounded: the configured and recorded queues and the engine's
 * kinds have their own, then `maxQueueLabels` queues and `maxKindLabels` kinds: the first counted,
 * then the busiest of each ranking window; every further name is counted as `(other)`, so no number of queue names grows a scrape past
 * `(kinds + 1) × (queues + 1)` series per metric.
 *
 * @example
 * ```ts
 * const metrics = new NudgeMetrics({ store, engine });
 * await app.register(nudgeRoutes, { store, engine, metrics }); // serves GET /metrics
 * ```
 */
export class NudgeMetrics {
  /** The registry `GET /metrics` serves. */
  readonly registry = new Registry();
  readonly #enqueued: KindQueueSeries<Counter<'kind' | 'queue'>>;
  readonly #nudges: Counter;
  readonly #storeCalls: Counter<'method'>;
  /** One series per store method, looked up once. */
  readonly #storeCallSeries = new Map<string, Counter.Internal>();
  readonly #detach: Array<() => void> = [];
  readonly #recordedQueues: RecordedQueuePins | undefined;
  readonly #labels: KindQueueLabels;
  readonly #clock: () => number;
  /** When the labels were last ranked, on {@link NudgeMetricsOptions.clock}. */
  #rankedAt: number;

  /**
   * @throws RangeError when `statusCountMaxAgeMs` is negative, or `maxQueueLabels` or
   *   `maxKindLabels` not a whole number of at least 0
   */
  constructor(options: NudgeMetricsOptions) {
    const registers = [this.registry];
    this.#clock = options.clock ?? (() => performance.now());
    this.#rankedAt = this.#clock();
    const labels: KindQueueLabels = {
      kinds: new LabelValues(options.maxKindLabels ?? DEFAULT_METRICS_MAX_KINDS, options.engine?.kinds),
      queues: new LabelValues(
        options.maxQueueLabels ?? DEFAULT_METRICS_MAX_QUEUES,
        (options.queues ?? []).filter((name) => name !== '*'),
      ),
    };
    this.#labels = labels;
    const counter = (name: string, help: string) =>
      new KindQueueSeries(new Counter({ name, help, labelNames: KIND_QUEUE, registers }), labels);
    this.#enqueued = counter('nudge_jobs_enqueued_total', "Jobs created through this instance's HTTP API.");
    this.#nudges = new Counter({
      name: 'nudge_nudges_received_total',
      help: 'POST /nudge requests received.',
      registers,
    });
    this.#storeCalls = new Counter({
      name: 'nudge_store_calls_total',
      help: "Calls of this instance's store by method, each one statement or transaction (a few are more): which source makes the database load.",
      labelNames: ['method'],
      registers,
    });
    const isolatedWrites = new Counter({
      name: 'nudge_isolated_writes_total',
      help: "Rows the database refused in this instance's batch writes, by operation, written apart from the rest of their batch (the store logs each with its job and constraint).",
      labelNames: ['operation'],
      registers,
    });
    for (const operation of ISOLATED_WRITE_OPERATIONS) isolatedWrites.labels(operation).inc(0);
    const stopIsolated = options.store.onIsolatedWrite?.(({ operation }) =>
      isolatedWrites.labels(operation).inc(),
    );
    if (stopIsolated) this.#detach.push(stopIsolated);
    const statusCounts = new JobStatusCounts(options.store, options.statusCountMaxAgeMs);
    const { listQueues } = options.store;
    this.#recordedQueues =
      listQueues &&
      new RecordedQueuePins(
        { listQueues: listQueues.bind(options.store) },
        labels.queues,
        options.statusCountMaxAgeMs ?? DEFAULT_STATUS_COUNT_MAX_AGE_MS,
      );
    const pins = this.#recordedQueues;
    if (pins) registerQueueLimitMetrics(this.registry, () => pins.states);
    new Gauge({
      name: 'nudge_jobs',
      help: 'Jobs by status, from one GROUP BY query reused for up to statusCountMaxAgeMs (15 s).',
      labelNames: ['status'],
      registers,
      async collect() {
        const counts = await statusCounts.get();
        for (const status of JOB_STATUSES) this.set({ status }, counts[status]);
      },
    });
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry });
    const { engine } = options;
    if (engine) {
      const context: EngineMetricsContext = {
        registry: this.registry,
        engine,
        labels,
        counter,
        on: (name, listener) => this.#on(engine, name, listener),
      };
      registerEngineMetrics(context);
      registerDurableStepMetrics(context);
    }
  }

  /** Counts the jobs an enqueue route created (a job whose idempotency key existed is not counted). */
  enqueued(jobs: readonly Pick<EnqueuedJob, 'kind' | 'queue' | 'created'>[]): void {
    for (const job of jobs) {
      if (!job.created) continue;
      this.#labels.kinds.seen(job.kind);
      this.#labels.queues.seen(job.queue);
      this.#enqueued.of(job.kind, job.queue).inc();
    }
  }

  /**
   * Counts one call of the store's `method`: pass it as `countStoreCalls`' `onCall` (see
   * `@nudge/store`), with the counted store handed to the engine and the routes.
   */
  storeCalled(method: string): void {
    let series = this.#storeCallSeries.get(method);
    if (series === undefined) {
      series = this.#storeCalls.labels(method);
      this.#storeCallSeries.set(method, series);
    }
    series.inc();
  }

  /** Counts one `POST /nudge`. */
  nudged(): void {
    this.#nudges.inc();
  }

  /**
   * The metrics in Prometheus' text format, after pinning the queues recorded since the last read
   * and, at most every {@link LABEL_RERANK_MS}, choosing again the kinds and queues with series of
   * their own from the busiest.
   */
  async scrape(): Promise<string> {
    await this.#recordedQueues?.refresh();
    const now = this.#clock();
    if (now - this.#rankedAt >= LABEL_RERANK_MS) {
      this.#rankedAt = now;
      this.#labels.kinds.rerank();
      this.#labels.queues.rerank();
    }
    return this.registry.metrics();
  }

  /** Stops listening to the engine's events. */
  close(): void {
    for (const off of this.#detach.splice(0)) off();
  }

  #on<K extends keyof EngineEvents>(
    engine: MetricsEngine,
    name: K,
    listener: (value: EngineEvents[K]) => void,
  ) {
    const on = engine.on as (name: K, listener: (value: EngineEvents[K]) => void) => unknown;
    const off = engine.off as (name: K, listener: (value: EngineEvents[K]) => void) => unknown;
    on.call(engine, name, listener);
    this.#detach.push(() => off.call(engine, name, listener));
  }
}

import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { EXECUTION_CLASSES, JOB_STATUSES } from '@nudge/core';
import type { Engine, EngineEvents } from '@nudge/engine';
import { ISOLATED_WRITE_OPERATIONS, type EnqueuedJob, type Store } from '@nudge/store';
import { JobStatusCounts } from './job-status-counts.js';
import { KindQueueSeries } from './kind-queue-series.js';

/** What the metrics read from an engine: its events, its slots and its claim-request counts. */
export type MetricsEngine = Pick<Engine, 'on' | 'off' | 'slots' | 'claimRequests'>;

/** Options of {@link NudgeMetrics}. */
export interface NudgeMetricsOptions {
  /**
   * Where `nudge_jobs{status}` is counted, and whose isolated writes `nudge_isolated_writes_total`
   * counts (when it has `onIsolatedWrite`).
   */
  readonly store: Pick<Store, 'countByStatus'> & Partial<Pick<Store, 'onIsolatedWrite'>>;
  /** The engine whose events are counted; without one, only the HTTP and store metrics exist. */
  readonly engine?: MetricsEngine;
  /**
   * How long a count of jobs by status is reused, in ms (see {@link JobStatusCounts}).
   * @defaultValue 15000
   */
  readonly statusCountMaxAgeMs?: number;
  /** Add Node's process metrics (`process_*`, `nodejs_*`). @defaultValue true */
  readonly processMetrics?: boolean;
}

/** Buckets of `nudge_claim_query_duration_seconds`: 0.5 ms to 2.5 s. */
const CLAIM_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
/** Buckets of `nudge_job_duration_seconds`: 1 ms to 10 min. */
const HANDLER_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 600];
/** Buckets of `nudge_job_wait_seconds`: 1 ms to 1 h. */
const WAIT_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 60, 300, 900, 3600];

const KIND_QUEUE = ['kind', 'queue'] as const;

/**
 * nudge's Prometheus metrics, in a registry of their own (never prom-client's global one, so one
 * process can hold several apps): job counters by kind and queue and histograms fed by the
 * engine's events (an increment or an observation per event, on a series looked up once), gauges
 * of slots and claim requests read at scrape time, jobs by status counted through a reused query,
 * and Node's process metrics. `docs/metrics.md` lists every metric.
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

  constructor(options: NudgeMetricsOptions) {
    const registers = [this.registry];
    const counter = (name: string, help: string) =>
      new KindQueueSeries(new Counter({ name, help, labelNames: KIND_QUEUE, registers }));
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
    if (options.engine) this.#watch(options.engine, counter);
  }

  /** Counts the jobs an enqueue route created (a job whose idempotency key existed is not counted). */
  enqueued(jobs: readonly Pick<EnqueuedJob, 'kind' | 'queue' | 'created'>[]): void {
    for (const job of jobs) if (job.created) this.#enqueued.of(job.kind, job.queue).inc();
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

  /** The metrics in Prometheus' text format. */
  scrape(): Promise<string> {
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

  #watch(
    engine: MetricsEngine,
    counter: (name: string, help: string) => KindQueueSeries<Counter<'kind' | 'queue'>>,
  ): void {
    const registers = [this.registry];
    const claimed = counter('nudge_jobs_claimed_total', 'Attempts this instance started (claimed jobs).');
    const succeeded = counter('nudge_jobs_succeeded_total', 'Successes this instance recorded.');
    const failed = counter('nudge_jobs_failed_total', 'Jobs this instance failed for good (status FAILED).');
    const retried = counter(
      'nudge_jobs_retried_total',
      'Failed attempts this instance recorded that will be retried (SCHEDULED or PENDING again).',
    );
    const released = counter(
      'nudge_jobs_released_total',
      "Running jobs given back to PENDING without charging the attempt (shutdown, a neighbour's thread terminated).",
    );
    const cancelled = counter('nudge_jobs_cancelled_total', 'Jobs cancelled through this instance.');
    const retriedByCommand = counter(
      'nudge_jobs_retry_commands_total',
      'FAILED or CANCELLED jobs retried through this instance (POST /jobs/:id/retry): PENDING again, or WAITING while a dependency has not succeeded.',
    );
    // Rare (a crash or a stall), so plain labels rather than a KindQueueSeries.
    const recovered = new Counter({
      name: 'nudge_jobs_recovered_total',
      help: "Jobs whose lease expired that this instance's sweeps recovered, by kind, queue and outcome (requeued or failed).",
      labelNames: [...KIND_QUEUE, 'outcome'],
      registers,
    });
    const sweeps = new Counter({ name: 'nudge_sweeps_total', help: 'Lease-expiry sweeps run.', registers });
    const pruned = new Counter({
      name: 'nudge_jobs_pruned_total',
      help: "Finished jobs this instance's retention runs deleted, by status.",
      labelNames: ['status'],
      registers,
    });
    const threads = new Counter({
      name: 'nudge_threads_lost_total',
      help: 'Worker threads that ended, idle or under running jobs, by class and cause (crashed, or terminated by the engine).',
      labelNames: ['execution', 'cause'],
      registers,
    });
    const claimSeconds = new Histogram({
      name: 'nudge_claim_query_duration_seconds',
      help: 'Round trip of claim queries, in seconds.',
      buckets: CLAIM_BUCKETS,
      registers,
    });
    const durationSeconds = new KindQueueSeries(
      new Histogram({
        name: 'nudge_job_duration_seconds',
        help: 'Time from handing an attempt to its thread to its end, in seconds.',
        labelNames: KIND_QUEUE,
        buckets: HANDLER_BUCKETS,
        registers,
      }),
    );
    const waitSeconds = new KindQueueSeries(
      new Histogram({
        name: 'nudge_job_wait_seconds',
        help: 'Time from a job becoming due (its enqueue, unless delayed or retried) to its claim, by the database clock, in seconds.',
        labelNames: KIND_QUEUE,
        buckets: WAIT_BUCKETS,
        registers,
      }),
    );
    const slotGauge = (name: string, help: string, read: (total: number, free: number) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['execution'],
        registers,
        collect() {
          const slots = engine.slots;
          for (const execution of EXECUTION_CLASSES) {
            const counts = slots[execution];
            if (counts) this.set({ execution }, read(counts.total, counts.free));
          }
        },
      });
    slotGauge('nudge_slots_busy', 'Slots running (or held for) a job, per execution class.', (t, f) => t - f);
    slotGauge('nudge_slots_free', 'Slots free to take a job, per execution class.', (_t, f) => f);
    let seen = engine.claimRequests;
    const requests = new Counter({
      name: 'nudge_claim_requests_total',
      help: 'Claim requests (poll timer, nudges, enqueues, freed slots, notifications) that reached the claim trigger.',
      registers,
    });
    const coalesced = new Counter({
      name: 'nudge_claim_requests_coalesced_total',
      help: 'Claim requests folded into a pass already owed instead of running one of their own.',
      registers,
      collect() {
        const now = engine.claimRequests;
        requests.inc(now.requested - seen.requested);
        this.inc(now.coalesced - seen.coalesced);
        seen = now;
      },
    });
    requests.inc(seen.requested);
    coalesced.inc(seen.coalesced);

    this.#on(engine, 'job:started', ({ job }) => {
      claimed.of(job.kind, job.queue).inc();
      if (job.waitMs !== undefined) waitSeconds.of(job.kind, job.queue).observe(job.waitMs / 1000);
    });
    this.#on(engine, 'job:ended', ({ job, durationMs }) =>
      durationSeconds.of(job.kind, job.queue).observe(durationMs / 1000),
    );
    this.#on(engine, 'job:succeeded', ({ kind, queue }) => succeeded.of(kind, queue).inc());
    this.#on(engine, 'job:failed', ({ kind, queue, status }) =>
      (status === 'FAILED' ? failed : retried).of(kind, queue).inc(),
    );
    this.#on(engine, 'job:released', ({ kind, queue }) => released.of(kind, queue).inc());
    this.#on(engine, 'command:done', ({ command, kind, queue }) =>
      (command === 'cancel' ? cancelled : retriedByCommand).of(kind, queue).inc(),
    );
    this.#on(engine, 'bulk-command:done', ({ command, groups }) => {
      const counter = command === 'cancel' ? cancelled : retriedByCommand;
      for (const { kind, queue, changed } of groups) counter.of(kind, queue).inc(changed);
    });
    this.#on(engine, 'sweep:done', ({ recovered: jobs }) => {
      sweeps.inc();
      for (const { kind, queue, failed: lost } of jobs) {
        recovered.inc({ kind, queue, outcome: lost ? 'failed' : 'requeued' });
      }
    });
    this.#on(engine, 'prune:done', ({ byStatus }) => {
      for (const [status, deleted] of Object.entries(byStatus))
        if (deleted > 0) pruned.inc({ status }, deleted);
    });
    this.#on(engine, 'thread:lost', ({ execution, terminated }) =>
      threads.inc({ execution, cause: terminated ? 'terminated' : 'crashed' }),
    );
    const observeClaim = ({ durationMs }: { durationMs: number }) => claimSeconds.observe(durationMs / 1000);
    this.#on(engine, 'claim:claimed', observeClaim);
    this.#on(engine, 'claim:empty', observeClaim);
  }
}

import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { EXECUTION_CLASSES } from '@nudge/core';
import type { EngineEvents } from '@nudge/engine';
import { KindQueueSeries, type KindQueueLabels } from './kind-queue-series.js';
import { RateLimitWaits } from './rate-limit-waits.js';
import type { MetricsEngine } from './nudge-metrics.js';

/** Buckets of `nudge_claim_query_duration_seconds`: 0.5 ms to 2.5 s. */
const CLAIM_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
/** Buckets of `nudge_job_duration_seconds`: 1 ms to 10 min. */
const HANDLER_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 600];
/** Buckets of `nudge_job_wait_seconds`: 1 ms to 1 h. */
const WAIT_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 60, 300, 900, 3600];

const KIND_QUEUE = ['kind', 'queue'] as const;

/** What {@link registerEngineMetrics} registers into, and how it listens. */
export interface EngineMetricsContext {
  readonly registry: Registry;
  readonly engine: MetricsEngine;
  /** Which kinds and queues get series of their own. */
  readonly labels: KindQueueLabels;
  /** A `kind`/`queue` counter in the registry. */
  readonly counter: (name: string, help: string) => KindQueueSeries<Counter<'kind' | 'queue'>>;
  /** Listens to an engine event until the metrics close. */
  readonly on: <K extends keyof EngineEvents>(name: K, listener: (value: EngineEvents[K]) => void) => void;
}

/**
 * The metrics fed by an engine's events (jobs claimed, finished, retried, released, cancelled,
 * recovered, pruned; threads lost; claim round trips, job durations and waits) and read from it at
 * scrape time (slots, claim requests); `docs/reference/metrics.md` lists them.
 */
export function registerEngineMetrics({ registry, engine, labels, counter, on }: EngineMetricsContext): void {
  const registers = [registry];
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
    labels,
  );
  const waitSeconds = new KindQueueSeries(
    new Histogram({
      name: 'nudge_job_wait_seconds',
      help: 'Time from a job becoming due (its enqueue, unless delayed or retried) to its claim, by the database clock, in seconds.',
      labelNames: KIND_QUEUE,
      buckets: WAIT_BUCKETS,
      registers,
    }),
    labels,
  );
  const dependencyWaitSeconds = new KindQueueSeries(
    new Histogram({
      name: 'nudge_dependency_wait_seconds',
      help: 'Time a job with dependencies waited on them, observed at its first claim: from becoming due (run_at: its enqueue, unless delayed) to the finish of its last dependency, which released it, by the database clock, in seconds; 0 when they had finished by then.',
      labelNames: KIND_QUEUE,
      buckets: WAIT_BUCKETS,
      registers,
    }),
    labels,
  );
  const rateWaits = new RateLimitWaits();
  const rateWaitSeconds = new Histogram({
    name: 'nudge_rate_limit_wait_seconds',
    help: "Time a job claimed by this instance from a rate-limited queue waited on the queue's rate limit: the part of its due → claim wait during which this instance's claims found the queue's rate window full (database clock), in seconds; 0 when it was never held by it.",
    labelNames: ['queue'],
    buckets: WAIT_BUCKETS,
    registers,
  });
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

  on('job:started', ({ job }) => {
    // A job's start is its one event the label ranking counts (see LabelValues.seen).
    labels.kinds.seen(job.kind);
    labels.queues.seen(job.queue);
    claimed.of(job.kind, job.queue).inc();
    if (job.waitMs !== undefined) waitSeconds.of(job.kind, job.queue).observe(job.waitMs / 1000);
    const rateWaitMs = job.waitMs === undefined ? undefined : rateWaits.waitedMs(job.queue, job.waitMs);
    if (rateWaitMs !== undefined)
      rateWaitSeconds.observe({ queue: labels.queues.of(job.queue) }, rateWaitMs / 1000);
    if (job.dependencyWaitMs !== undefined)
      dependencyWaitSeconds.of(job.kind, job.queue).observe(job.dependencyWaitMs / 1000);
  });
  on('claim:rate-windows', ({ nowMs, rateWindows }) => rateWaits.claimed(nowMs, rateWindows));
  on('job:ended', ({ job, durationMs }) =>
    durationSeconds.of(job.kind, job.queue).observe(durationMs / 1000),
  );
  on('job:succeeded', ({ kind, queue }) => succeeded.of(kind, queue).inc());
  on('job:failed', ({ kind, queue, status }) =>
    (status === 'FAILED' ? failed : retried).of(kind, queue).inc(),
  );
  on('job:released', ({ kind, queue }) => released.of(kind, queue).inc());
  on('command:done', ({ command, kind, queue }) =>
    (command === 'cancel' ? cancelled : retriedByCommand).of(kind, queue).inc(),
  );
  on('bulk-command:done', ({ command, groups }) => {
    const counter = command === 'cancel' ? cancelled : retriedByCommand;
    for (const { kind, queue, changed } of groups) counter.of(kind, queue).inc(changed);
  });
  // The label sets `recovered` has series for, so that a kind or queue that loses its series at a
  // ranking loses them here too.
  const recoveredSeries = new Map<string, { kind: string; queue: string; outcome: string }>();
  const dropRecovered = (label: 'kind' | 'queue') => (values: ReadonlySet<string>) => {
    for (const [key, series] of recoveredSeries) {
      if (!values.has(series[label])) continue;
      recovered.remove(series);
      recoveredSeries.delete(key);
    }
  };
  labels.kinds.onDemoted(dropRecovered('kind'));
  labels.queues.onDemoted(dropRecovered('queue'));
  on('sweep:done', ({ recovered: jobs }) => {
    sweeps.inc();
    for (const { kind, queue, failed: lost } of jobs) {
      const series = {
        kind: labels.kinds.of(kind),
        queue: labels.queues.of(queue),
        outcome: lost ? 'failed' : 'requeued',
      };
      recoveredSeries.set(JSON.stringify(series), series);
      recovered.inc(series);
    }
  });
  on('prune:done', ({ byStatus }) => {
    for (const [status, deleted] of Object.entries(byStatus))
      if (deleted > 0) pruned.inc({ status }, deleted);
  });
  on('thread:lost', ({ execution, terminated }) =>
    threads.inc({ execution, cause: terminated ? 'terminated' : 'crashed' }),
  );
  const observeClaim = ({ durationMs }: { durationMs: number }) => claimSeconds.observe(durationMs / 1000);
  on('claim:claimed', observeClaim);
  on('claim:empty', observeClaim);
}

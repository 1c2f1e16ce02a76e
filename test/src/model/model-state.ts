// The reference model of the job lifecycle test: what the commands did (the virtual clock, the
// leases claims handed out, the queues' limits and starts) and the last read of every job, from
// which each check computes what must hold.
import type { Job, JobStatus } from '@nudge/core';
import type { Dialect } from '@nudge/store';
import { createDurableModel, type DurableModel, type ShippedSteps } from './durable-state.js';

/** Statuses a job ends in (retention may then delete it). */
export const FINAL_STATUSES: readonly JobStatus[] = ['SUCCEEDED', 'FAILED', 'CANCELLED'];

/** Whether `status` is one a job ends in. */
export const isFinal = (status: JobStatus): boolean => FINAL_STATUSES.includes(status);

/** Job kinds the commands enqueue and claim. */
export const MODEL_KINDS = ['a', 'b'] as const;

/** Queues the commands enqueue into, limit, pause and prune. */
export const MODEL_QUEUES = ['default', 'q1', 'q2'] as const;

/** Lease every claim takes, in ms. */
export const MODEL_LEASE_MS = 30_000;

/** A lease a claim handed out: the attempt a complete or fail names. */
export interface ModelLease {
  readonly id: number;
  readonly version: number;
  readonly workerId: string;
  /** The attempt's number, from 1. */
  readonly attempt: number;
  /** The steps and signals the claim shipped; `undefined` when it shipped none. */
  readonly shipped: ShippedSteps | undefined;
  /** The step, sleep and wait names this attempt used (a name is used once per attempt). */
  readonly used: Set<string>;
}

/** A rate limit as the model tracks it: the limit and the step that set it. */
export interface ModelRate {
  readonly limit: number;
  readonly intervalMs: number;
  /**
   * Starts of later steps count against it (the store logs starts only while a queue has a rate
   * limit; it may count older ones too, which only makes it stricter).
   */
  readonly sinceStep: number;
}

/** A start a claim returned: when, by the virtual clock, and in which step. */
export interface ModelStart {
  readonly atMs: number;
  readonly step: number;
}

/** A queue's state as the commands set it. */
export interface ModelQueue {
  paused: boolean;
  concurrency: number | null;
  keyConcurrency: number | null;
  rate: ModelRate | null;
  /** The starts the claims returned, oldest first. */
  readonly starts: ModelStart[];
}

/**
 * The store's known faults, which a model may avoid (see {@link ModelOptions.avoid}):
 * - `debounce-retry`: a debounced job's retry waiting `SCHEDULED` beside another job of its
 *   debounce key breaks the unique index (fail and sweep retry with no delay instead);
 * - `dependent-retry`: a retried dependent whose dependencies did not succeed runs anyway
 *   (such retries are skipped).
 */
export const KNOWN_FAULTS = ['debounce-retry', 'dependent-retry'] as const;

/** One of {@link KNOWN_FAULTS}. */
export type KnownFault = (typeof KNOWN_FAULTS)[number];

/**
 * The known faults named by `text` (the `NUDGE_MODEL_SKIP_KNOWN` variable): `1` for all, or
 * names of {@link KNOWN_FAULTS} separated by commas; none when unset or empty.
 * @throws Error naming the faults it knows, for an unknown name
 */
export function parseKnownFaults(text: string | undefined): ReadonlySet<KnownFault> {
  if (!text) return new Set();
  if (text === '1') return new Set(KNOWN_FAULTS);
  const names = text.split(',').map((name) => name.trim());
  for (const name of names) {
    if (!(KNOWN_FAULTS as readonly string[]).includes(name))
      throw new Error(`NUDGE_MODEL_SKIP_KNOWN: ${name} is not one of 1, ${KNOWN_FAULTS.join(', ')}`);
  }
  return new Set(names as KnownFault[]);
}

/** The dialect a model runs on, and the known faults it avoids. */
export interface ModelOptions {
  readonly dialect: Dialect;
  /** The store's known faults whose triggering combinations the commands avoid. */
  readonly avoid: ReadonlySet<KnownFault>;
}

/** The reference model; see the file comment. */
export interface Model extends ModelOptions {
  /** The virtual clock passed as `now` to every store call that takes one, in epoch ms. */
  nowMs: number;
  /** Where the virtual clock started, in epoch ms. */
  readonly startMs: number;
  /** Commands run so far; a step is one command. */
  step: number;
  /** What the run did, one line per command and store call, for the failure message. */
  readonly trace: string[];
  /** Every job as last read, by id. */
  snapshot: Map<number, Job>;
  /** The last read of each job retention deleted. */
  readonly pruned: Map<number, Job>;
  /** Every id a job was ever created with, ascending: what a command's pick resolves against. */
  readonly ids: number[];
  /** Every lease a claim returned, oldest first: what complete and fail pick from. */
  readonly leases: ModelLease[];
  readonly queues: Map<string, ModelQueue>;
  /** The step at which each job left `WAITING` for `PENDING` or `SCHEDULED` (was released). */
  readonly releasedAt: Map<number, number>;
  /** The step at which each job last went from `FAILED` or `CANCELLED` back to `PENDING`. */
  readonly retriedAt: Map<number, number>;
  /** Steps, sleeps, signals and signal waits. */
  readonly durable: DurableModel;
}

/** A fresh model whose clock starts at `startMs`. */
export function createModel(options: ModelOptions, startMs: number): Model {
  return {
    ...options,
    nowMs: startMs,
    startMs,
    step: 0,
    trace: [],
    snapshot: new Map(),
    pruned: new Map(),
    ids: [],
    leases: [],
    queues: new Map(MODEL_QUEUES.map((name) => [name, newQueue()])),
    releasedAt: new Map(),
    retriedAt: new Map(),
    durable: createDurableModel(),
  };
}

function newQueue(): ModelQueue {
  return { paused: false, concurrency: null, keyConcurrency: null, rate: null, starts: [] };
}

/** The model of queue `name` (created on first use). */
export function queueOf(model: Model, name: string): ModelQueue {
  let queue = model.queues.get(name);
  if (!queue) {
    queue = newQueue();
    model.queues.set(name, queue);
  }
  return queue;
}

/** The job `id` as last read, or as last read before retention deleted it. */
export const lastKnown = (model: Model, id: number): Job | undefined =>
  model.snapshot.get(id) ?? model.pruned.get(id);

/** The item of `list` a pick (any natural number) names, or `undefined` for an empty list. */
export function pickOf<T>(list: readonly T[], pick: number): T | undefined {
  return list.length === 0 ? undefined : list[pick % list.length];
}

/** The virtual clock as a `Date`. */
export const nowOf = (model: Model): Date => new Date(model.nowMs);

/** Moves the virtual clock forward to `ms` (never back). */
export function advanceTo(model: Model, ms: number): void {
  model.nowMs = Math.max(model.nowMs, ms);
}

/** Starts in `queue`'s rate window ending now (`(now - interval, now]`) since its rate was set. */
export function startsInWindow(queue: ModelQueue, rate: ModelRate, nowMs: number): number {
  return queue.starts.filter(
    (start) => start.step > rate.sinceStep && start.atMs > nowMs - rate.intervalMs && start.atMs <= nowMs,
  ).length;
}

/** A job in one line, for messages. */
export function describeJob(job: Job): string {
  const parts = [
    `#${job.id} ${job.kind}@${job.queue} ${job.status} v${job.version} att ${job.attempts}/${job.maxAttempts}`,
  ];
  if (job.concurrencyKey) parts.push(`ck ${job.concurrencyKey}`);
  if (job.debounceKey) parts.push(`deb ${job.debounceKey}`);
  if (job.throttleKey) parts.push(`thr ${job.throttleKey}`);
  if (job.dependsOn.length > 0) parts.push(`deps [${job.dependsOn.join(',')}] ${job.onDependencyFailure}`);
  return parts.join(', ');
}

import { availableParallelism, hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import {
  DEFAULT_BACKOFF,
  silentLogger,
  validateBackoff,
  type BackoffOptions,
  type Logger,
} from '@nudge/core';
import type { Store } from '@nudge/store';
import { EVERY_QUEUE, resolveQueueServing, type QueueServing, type ServedQueue } from './queue-serving.js';
import { DEFAULT_RETENTION, type RetentionPolicy } from './retention-policy.js';
import type { CronSchedule } from './cron-schedule.js';

/** Everything an {@link Engine} is configured with; only `store` and `handlers` are required. */
export interface EngineOptions {
  /** Where jobs live; the engine neither migrates nor closes it. */
  readonly store: Store;
  /** Path or `file:` URL of the handler module (see `HandlerExport`). */
  readonly handlers: string;
  /**
   * Threads for `cpu` kinds, each running one job at a time: the `cpu` slots.
   * @defaultValue available parallelism
   */
  readonly threads?: number;
  /** Threads for `async` kinds. @defaultValue 1 */
  readonly asyncThreads?: number;
  /** `async` jobs one thread runs at once; `asyncThreads × asyncConcurrency` are the `async` slots. @defaultValue 100 */
  readonly asyncConcurrency?: number;
  /**
   * How much lower than the service's main thread the `cpu` threads run (a `nice` increment, 0 to
   * 19; Linux only). CPU-bound handlers then yield the core at once to claims, heartbeats, the HTTP
   * API and a database on the same host, instead of making them wait for a time slice.
   * @defaultValue 10
   */
  readonly cpuThreadNice?: number;
  /**
   * Queues this instance claims from, each with an optional cap on how many of its jobs this
   * instance runs at once; `{ name: '*' }` serves every queue not listed (see `parseQueueList`
   * for a text form). Caps hold per instance, on top of the slots of each
   * execution class. @defaultValue `[{ name: '*' }]`: every queue, none capped
   */
  readonly queues?: readonly ServedQueue[];
  /** Most rows one claim takes, per execution class. @defaultValue 500 */
  readonly maxClaimBatch?: number;
  /** The nudge version this instance runs, as the instance registry shows it. @defaultValue `null` (unknown) */
  readonly version?: string | null;
  /** Written to `claimed_by` and the instance registry. @defaultValue `host:pid:random` */
  readonly workerId?: string;
  /**
   * Time between safety polls after a sign of work, in ms, jittered by ±10 %; always this while
   * no new-jobs listener is healthy. @defaultValue 1000
   */
  readonly pollIntervalMs?: number;
  /**
   * Longest time between safety polls of an idle instance whose new-jobs listener is healthy, in
   * ms: the interval doubles from `pollIntervalMs` up to it. The bound on how late a job whose
   * wake-up was lost (a dropped notification, a producer that never nudged) starts. Below
   * `pollIntervalMs`, the poll never backs off. @defaultValue 30000
   */
  readonly idlePollMaxMs?: number;
  /**
   * Once two claim queries in a row found no job, the least time before the next one, in ms;
   * requests meanwhile (nudges, notifications) fold into one pass. Bounds the empty claim queries
   * a storm of wake-ups can cost to about `1000 / claimCooldownMs` a second per instance; a lone
   * wake-up still claims at once. 0 never waits. @defaultValue 10
   */
  readonly claimCooldownMs?: number;
  /**
   * Wake on the database's notification of new runnable jobs (PostgreSQL `LISTEN`, one session
   * connection per instance; SQLite: another connection's commit to the file, seen through
   * `PRAGMA data_version` every 250 ms on the store's own connection); ignored by a store that
   * cannot listen. @defaultValue true
   */
  readonly listen?: boolean;
  /** Lease length, in ms; heartbeats renew it every third of it. @defaultValue 30000 */
  readonly leaseMs?: number;
  /**
   * Least time between two sweeps for expired leases, in ms: a sweep runs when a lease has
   * expired, so a stopped instance's jobs are recovered within this of their lease's expiry.
   * @defaultValue 5000
   */
  readonly sweepIntervalMs?: number;
  /** Longest an attempt may run, in ms, before its `ctx.signal` is aborted and it fails. @defaultValue 300000 */
  readonly jobTimeoutMs?: number;
  /** Time between `ctx.signal` firing and the thread being terminated, in ms. @defaultValue 1000 */
  readonly abortGraceMs?: number;
  /** Time running jobs get to finish on shutdown before they are aborted and released, in ms. @defaultValue 10000 */
  readonly shutdownGraceMs?: number;
  /**
   * How long a due job may wait while no live instance has a handler for its kind before it is
   * failed, in ms; 0 never fails such jobs. @defaultValue 300000 (5 minutes)
   */
  readonly unhandledKindGraceMs?: number;
  /**
   * Recurring jobs besides those the handler module's `schedules` export declares (checked when
   * the engine is created). @defaultValue none
   */
  readonly schedules?: readonly CronSchedule[];
  /** How long finished jobs are kept before they are deleted. @defaultValue {@link DEFAULT_RETENTION} */
  readonly retention?: RetentionPolicy;
  /** Time between retention runs, in ms, jittered by ±10 %; 0 never prunes. @defaultValue 60000 */
  readonly pruneIntervalMs?: number;
  /** Retry delay curve. @defaultValue {@link DEFAULT_BACKOFF} */
  readonly backoff?: BackoffOptions;
  /** Per-kind overrides of the curve, merged over `backoff`. */
  readonly backoffByKind?: Readonly<Record<string, Partial<BackoffOptions>>>;
  /**
   * Shortest time between two progress writes of one job (`ctx.progress`), in ms: the engine
   * writes the latest value of every job that reported progress in one statement at most once
   * per interval, and each thread sends its jobs' latest values at most once per interval. At
   * least 10. @defaultValue 1000
   */
  readonly progressIntervalMs?: number;
  /** Heap limit of each thread, in MB. @defaultValue 512 */
  readonly maxOldGenerationSizeMb?: number;
  readonly logger?: Logger;
}

/** {@link EngineOptions} with every default filled in. */
export type ResolvedEngineOptions = Required<Omit<EngineOptions, 'backoffByKind'>> & {
  readonly backoffByKind: Readonly<Record<string, BackoffOptions>>;
  /** `queues`, resolved. */
  readonly queueServing: QueueServing;
};

function wholeNumber(name: string, value: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`${name} must be a whole number from ${min} to ${max} (got ${String(value)})`);
  }
  return value;
}

/**
 * Merges defaults and checks every field once, naming the field at fault.
 * @throws RangeError when a field is out of range
 */
export function resolveEngineOptions(options: EngineOptions): ResolvedEngineOptions {
  const backoff = validateBackoff(options.backoff ?? DEFAULT_BACKOFF);
  const backoffByKind: Record<string, BackoffOptions> = {};
  for (const [kind, override] of Object.entries(options.backoffByKind ?? {})) {
    backoffByKind[kind] = validateBackoff({ ...backoff, ...override }, `backoffByKind.${kind}`);
  }
  return {
    store: options.store,
    handlers: options.handlers,
    threads: wholeNumber('threads', options.threads ?? availableParallelism(), 1, 1024),
    asyncThreads: wholeNumber('asyncThreads', options.asyncThreads ?? 1, 1, 1024),
    asyncConcurrency: wholeNumber('asyncConcurrency', options.asyncConcurrency ?? 100, 1, 100_000),
    cpuThreadNice: wholeNumber('cpuThreadNice', options.cpuThreadNice ?? 10, 0, 19),
    queues: options.queues ?? EVERY_QUEUE,
    queueServing: resolveQueueServing(options.queues ?? EVERY_QUEUE),
    maxClaimBatch: wholeNumber('maxClaimBatch', options.maxClaimBatch ?? 500, 1, 10_000),
    version: options.version ?? null,
    workerId: options.workerId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
    pollIntervalMs: wholeNumber('pollIntervalMs', options.pollIntervalMs ?? 1000, 1),
    idlePollMaxMs: wholeNumber('idlePollMaxMs', options.idlePollMaxMs ?? 30_000, 1),
    claimCooldownMs: wholeNumber('claimCooldownMs', options.claimCooldownMs ?? 10, 0, 60_000),
    listen: options.listen ?? true,
    leaseMs: wholeNumber('leaseMs', options.leaseMs ?? 30_000, 300),
    sweepIntervalMs: wholeNumber('sweepIntervalMs', options.sweepIntervalMs ?? 5000, 1),
    jobTimeoutMs: wholeNumber('jobTimeoutMs', options.jobTimeoutMs ?? 300_000, 1),
    abortGraceMs: wholeNumber('abortGraceMs', options.abortGraceMs ?? 1000, 0),
    shutdownGraceMs: wholeNumber('shutdownGraceMs', options.shutdownGraceMs ?? 10_000, 0),
    unhandledKindGraceMs: wholeNumber('unhandledKindGraceMs', options.unhandledKindGraceMs ?? 300_000, 0),
    schedules: options.schedules ?? [],
    retention: options.retention ?? DEFAULT_RETENTION,
    pruneIntervalMs: wholeNumber('pruneIntervalMs', options.pruneIntervalMs ?? 60_000, 0),
    progressIntervalMs: wholeNumber('progressIntervalMs', options.progressIntervalMs ?? 1000, 10),
    backoff,
    backoffByKind,
    maxOldGenerationSizeMb: wholeNumber('maxOldGenerationSizeMb', options.maxOldGenerationSizeMb ?? 512, 16),
    logger: options.logger ?? silentLogger,
  };
}

/** Multiplies `ms` by a random factor in `[1 - ratio, 1 + ratio)`, so instances do not poll in step. */
export function jittered(ms: number, ratio = 0.1): number {
  return Math.round(ms * (1 + ratio * (2 * Math.random() - 1)));
}

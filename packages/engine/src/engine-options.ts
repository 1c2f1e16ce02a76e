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

/** Everything an {@link Engine} is configured with; only `store` and `handlers` are required. */
export interface EngineOptions {
  /** Where jobs live; the engine neither migrates nor closes it. */
  readonly store: Store;
  /** Path or `file:` URL of the module whose exported functions are the handlers. */
  readonly handlers: string;
  /** Worker threads, which are also the slots: jobs running at once. @defaultValue available parallelism */
  readonly threads?: number;
  /** Written to `claimed_by`. @defaultValue `host:pid:random` */
  readonly workerId?: string;
  /** Time between polls, in ms, jittered by ±10 %. @defaultValue 1000 */
  readonly pollIntervalMs?: number;
  /** Lease length, in ms; heartbeats renew it every third of it. @defaultValue 30000 */
  readonly leaseMs?: number;
  /** Time between sweeps for expired leases, in ms. @defaultValue 5000 */
  readonly sweepIntervalMs?: number;
  /** Longest an attempt may run, in ms, before it is aborted and failed. @defaultValue 300000 */
  readonly jobTimeoutMs?: number;
  /** Time between `ctx.signal` firing and the thread being terminated, in ms. @defaultValue 1000 */
  readonly abortGraceMs?: number;
  /** Time running jobs get to finish on shutdown before they are aborted and released, in ms. @defaultValue 10000 */
  readonly shutdownGraceMs?: number;
  /** Retry delay curve. @defaultValue {@link DEFAULT_BACKOFF} */
  readonly backoff?: BackoffOptions;
  /** Per-kind overrides of the curve, merged over `backoff`. */
  readonly backoffByKind?: Readonly<Record<string, Partial<BackoffOptions>>>;
  /** Heap limit of each thread, in MB. @defaultValue 512 */
  readonly maxOldGenerationSizeMb?: number;
  readonly logger?: Logger;
}

/** {@link EngineOptions} with every default filled in. */
export type ResolvedEngineOptions = Required<Omit<EngineOptions, 'backoffByKind'>> & {
  readonly backoffByKind: Readonly<Record<string, BackoffOptions>>;
};

function positiveInteger(name: string, value: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new RangeError(`${name} must be a whole number from 1 to ${max} (got ${String(value)})`);
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
  const leaseMs = positiveInteger('leaseMs', options.leaseMs ?? 30_000);
  if (leaseMs < 300) throw new RangeError(`leaseMs must be at least 300 (got ${leaseMs})`);
  return {
    store: options.store,
    handlers: options.handlers,
    threads: positiveInteger('threads', options.threads ?? availableParallelism(), 1024),
    workerId: options.workerId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
    pollIntervalMs: positiveInteger('pollIntervalMs', options.pollIntervalMs ?? 1000),
    leaseMs,
    sweepIntervalMs: positiveInteger('sweepIntervalMs', options.sweepIntervalMs ?? 5000),
    jobTimeoutMs: positiveInteger('jobTimeoutMs', options.jobTimeoutMs ?? 300_000),
    abortGraceMs: Math.max(0, options.abortGraceMs ?? 1000),
    shutdownGraceMs: Math.max(0, options.shutdownGraceMs ?? 10_000),
    backoff,
    backoffByKind,
    maxOldGenerationSizeMb: positiveInteger('maxOldGenerationSizeMb', options.maxOldGenerationSizeMb ?? 512),
    logger: options.logger ?? silentLogger,
  };
}

/** Multiplies `ms` by a random factor in `[1 - ratio, 1 + ratio)`, so instances do not poll in step. */
export function jittered(ms: number, ratio = 0.1): number {
  return Math.round(ms * (1 + ratio * (2 * Math.random() - 1)));
}

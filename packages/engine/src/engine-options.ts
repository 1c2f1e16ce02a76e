import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import {
  DEFAULT_BACKOFF,
  silentLogger,
  validateBackoff,
  type BackoffOptions,
  type Logger,
} from '@nudge/core';
import type { Store } from '@nudge/store';
import { resolveQueueServing, type QueueServing } from './queue-serving.js';
import { ENGINE_SETTINGS, type EngineSettingName } from './settings/engine-settings.js';
import { resolveSettings } from './settings/resolve-settings.js';
import type { SettingValue } from './settings/setting.js';

/**
 * The engine's settings as options, by name (`threads`, `leaseMs`, `queues`…): each one's type,
 * default, range and unit are declared once, in {@link ENGINE_SETTINGS} (and listed in
 * `docs/reference/settings.md`); one left out takes its default.
 */
export type EngineSettingOptions = {
  readonly [Name in EngineSettingName]?: SettingValue<(typeof ENGINE_SETTINGS)[Name]>;
};

/**
 * Everything an {@link Engine} is configured with; only `store` and `handlers` are required. The
 * settings (threads, intervals, leases, queues, retention…) are those of {@link ENGINE_SETTINGS};
 * the rest are objects a program passes in.
 */
export interface EngineOptions extends EngineSettingOptions {
  /** Where jobs live; the engine neither migrates nor closes it. */
  readonly store: Store;
  /** Path or `file:` URL of the handler module (see `HandlerExport`). */
  readonly handlers: string;
  /** The nudge version this instance runs, as the instance registry shows it. @defaultValue `null` (unknown) */
  readonly version?: string | null;
  /** Written to `claimed_by` and the instance registry. @defaultValue `host:pid:random` */
  readonly workerId?: string;
  /** Retry delay curve. @defaultValue {@link DEFAULT_BACKOFF} */
  readonly backoff?: BackoffOptions;
  /** Per-kind overrides of the curve, merged over `backoff`. */
  readonly backoffByKind?: Readonly<Record<string, Partial<BackoffOptions>>>;
  /** Where the engine logs. @defaultValue a logger that logs nothing */
  readonly logger?: Logger;
  /**
   * Traces attempts with OpenTelemetry: each gets a `process <kind>` span in its worker thread,
   * the parent of the handler's own spans, continuing the job's `trace_context`; `ctx.enqueue`
   * follow-ups carry its context. A worker thread has no tracer provider of its own: give
   * `threadSetup`, or register one in the handler module. @defaultValue none: no spans, and claims
   * ship no trace context to the threads
   */
  readonly tracing?: EngineTracing;
}

/** How an engine traces attempts (see {@link EngineOptions.tracing}). */
export interface EngineTracing {
  /**
   * Path (relative to the working directory) or `file:` URL of a module every worker thread
   * imports before the handler module: it registers the thread's OpenTelemetry tracer provider
   * (say, starts a `NodeSDK`), which exports the thread's spans. @defaultValue none
   */
  readonly threadSetup?: string;
}

/** {@link EngineOptions} with every default filled in. */
export type ResolvedEngineOptions = Required<Omit<EngineOptions, 'backoffByKind' | 'tracing'>> & {
  readonly backoffByKind: Readonly<Record<string, BackoffOptions>>;
  /** `tracing`, as given. */
  readonly tracing: EngineTracing | undefined;
  /** `queues`, resolved. */
  readonly queueServing: QueueServing;
};

/**
 * Merges defaults and checks every field once, naming the field at fault: the settings by
 * {@link ENGINE_SETTINGS}, then the backoff curves.
 * @throws RangeError naming the field at fault and what it must be, such as
 *   `leaseMs must be a whole number of ms from 300 to 2147483647 (got 0)`
 */
export function resolveEngineOptions(options: EngineOptions): ResolvedEngineOptions {
  const settings = resolveSettings(ENGINE_SETTINGS, options);
  const backoff = validateBackoff(options.backoff ?? DEFAULT_BACKOFF);
  const backoffByKind: Record<string, BackoffOptions> = {};
  for (const [kind, override] of Object.entries(options.backoffByKind ?? {})) {
    backoffByKind[kind] = validateBackoff({ ...backoff, ...override }, `backoffByKind.${kind}`);
  }
  return {
    ...settings,
    store: options.store,
    handlers: options.handlers,
    queueServing: resolveQueueServing(settings.queues),
    version: options.version ?? null,
    workerId: options.workerId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
    backoff,
    backoffByKind,
    logger: options.logger ?? silentLogger,
    tracing: options.tracing,
  };
}

/** Multiplies `ms` by a random factor in `[1 - ratio, 1 + ratio)`, so instances do not poll in step. */
export function jittered(ms: number, ratio = 0.1): number {
  return Math.round(ms * (1 + ratio * (2 * Math.random() - 1)));
}

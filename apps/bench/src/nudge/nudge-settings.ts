// Every knob of the nudge server the bench sets, in one place, so tuning it is one edit.
import { availableParallelism } from 'node:os';

/**
 * Whether the handler module declares the `noop` and `latency` kinds in the object form
 * `{ handler, execution: 'async' }` (many jobs at once per thread, on `NUDGE_ASYNC_THREADS`
 * threads). Off, every kind is a plain function: a `cpu` kind, one job per thread at a time.
 */
export const NUDGE_ASYNC_KINDS = true;

/** The nudge server's settings in the bench. */
export interface NudgeSettings {
  /** `NUDGE_THREADS`: threads for `cpu` kinds, one job each. */
  readonly threads: number;
  /** `NUDGE_ASYNC_THREADS`: threads for `async` kinds (used once {@link NUDGE_ASYNC_KINDS} is on). */
  readonly asyncThreads: number;
  /** `NUDGE_ASYNC_CONCURRENCY`: `async` jobs at once per async thread. */
  readonly asyncConcurrency: number;
  /** `NUDGE_MAX_CLAIM_BATCH`: most rows one claim takes per execution class. */
  readonly maxClaimBatch: number;
  /** `NUDGE_POLL_INTERVAL_MS`: the fallback poll; the bench wakes the server with `POST /nudge`. */
  readonly pollIntervalMs: number;
  /**
   * `NUDGE_RATE_LIMIT_PER_MINUTE`: requests a minute per client; 0 turns the limit off. The bench is
   * one client address sending up to thousands of requests a second (the steady scenario), which
   * the default of 6,000 a minute would answer with `429 RATE_LIMITED`.
   */
  readonly rateLimitPerMinute: number;
}

/**
 * The settings every nudge scenario uses: the server's defaults except `asyncConcurrency` (1000
 * instead of 100: no-op jobs hold a slot only for a few milliseconds, so two claims of 500 can be
 * in flight while the previous ones run) and the rate limit (off), as the peers get their fastest
 * documented settings.
 * @defaultValue threads = available parallelism, 1 async thread × 1000 jobs, claims of up to 500, poll every 1000 ms
 */
export const NUDGE_SETTINGS: NudgeSettings = {
  threads: availableParallelism(),
  asyncThreads: 1,
  asyncConcurrency: 2000,
  maxClaimBatch: 1000,
  pollIntervalMs: 1000,
  rateLimitPerMinute: 0,
};

/**
 * Rows the engine claims per query for no-op jobs when every slot is free: the free `async` slots
 * (threads × concurrency), capped by `NUDGE_MAX_CLAIM_BATCH`. The pg-limit scenario also loops at
 * this batch size (`--engine-batch` overrides it); change it here when the engine claims differently.
 */
export const NUDGE_ENGINE_CLAIM_BATCH: number = Math.min(
  NUDGE_SETTINGS.maxClaimBatch,
  NUDGE_ASYNC_KINDS ? NUDGE_SETTINGS.asyncThreads * NUDGE_SETTINGS.asyncConcurrency : NUDGE_SETTINGS.threads,
);

/** The server's environment for `settings` (merged over this process's by `spawnServer`). */
export function nudgeServerEnv(settings: NudgeSettings): Record<string, string> {
  return {
    NUDGE_THREADS: String(settings.threads),
    NUDGE_ASYNC_THREADS: String(settings.asyncThreads),
    NUDGE_ASYNC_CONCURRENCY: String(settings.asyncConcurrency),
    NUDGE_MAX_CLAIM_BATCH: String(settings.maxClaimBatch),
    NUDGE_POLL_INTERVAL_MS: String(settings.pollIntervalMs),
    NUDGE_RATE_LIMIT_PER_MINUTE: String(settings.rateLimitPerMinute),
    LOG_LEVEL: 'warn',
  };
}

/** One line for the output, such as `NUDGE_THREADS=2, …; noop/latency kinds: cpu (plain functions)`. */
export function describeNudgeSettings(settings: NudgeSettings): string {
  const env = Object.entries(nudgeServerEnv(settings))
    .filter(([name]) => name !== 'LOG_LEVEL')
    .map(([name, value]) => `${name}=${value}`)
    .join(', ');
  const kinds = NUDGE_ASYNC_KINDS
    ? '`noop`/`latency` kinds `async`, `burn` `cpu`'
    : 'every kind `cpu` (plain functions, so `NUDGE_ASYNC_*` are unused)';
  return `${env}; ${kinds}; producers wake the server with \`POST /nudge\` after a plain \`INSERT\``;
}

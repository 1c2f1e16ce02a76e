/**
 * Shape of the retry delay curve.
 *
 * The delay before attempt `n + 1` after attempt `n` failed is
 * `min(maxMs, baseMs * 2^(n - 1)) * (1 + jitterRatio * u)` with `u` uniform in `[-1, 1)`,
 * capped again at `maxMs`: exponential backoff with proportional jitter, as described in
 * "Exponential Backoff And Jitter" (AWS Architecture Blog, M. Brooker, 2015). The jitter spreads
 * retries of jobs that failed together so they do not return together.
 */
export interface BackoffOptions {
  /** Delay after the first failed attempt, in ms. @defaultValue 1000 */
  readonly baseMs: number;
  /** Upper bound of any delay, in ms. @defaultValue 3_600_000 (one hour) */
  readonly maxMs: number;
  /** Relative spread around the curve, from 0 (none) to 1. @defaultValue 0.1 */
  readonly jitterRatio: number;
}

/** Defaults for {@link BackoffOptions}: 1 s, 2 s, 4 s … capped at one hour, ±10 %. */
export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 1000, maxMs: 3_600_000, jitterRatio: 0.1 };

/**
 * Delay before the next attempt, in ms (a whole number).
 *
 * @param failedAttempt - the attempt number that just failed, from 1
 * @param options - the curve; see {@link BackoffOptions} for the formula
 * @param random - source of `[0, 1)` numbers, replaceable in tests
 */
export function retryDelayMs(
  failedAttempt: number,
  options: BackoffOptions = DEFAULT_BACKOFF,
  random: () => number = Math.random,
): number {
  const exponent = Math.max(0, failedAttempt - 1);
  const curve = Math.min(options.maxMs, options.baseMs * 2 ** exponent);
  const spread = options.jitterRatio * (2 * random() - 1);
  return Math.max(0, Math.min(options.maxMs, Math.round(curve * (1 + spread))));
}

/**
 * Checks a backoff setting and names the offending field.
 *
 * @throws RangeError when a field is negative, not finite, or `jitterRatio` is above 1
 */
export function validateBackoff(options: BackoffOptions, label = 'backoff'): BackoffOptions {
  for (const field of ['baseMs', 'maxMs', 'jitterRatio'] as const) {
    const value = options[field];
    if (!Number.isFinite(value) || value < 0) {
      throw new RangeError(`${label}.${field} must be a finite number >= 0 (got ${String(value)})`);
    }
  }
  if (options.jitterRatio > 1) {
    throw new RangeError(`${label}.jitterRatio must be between 0 and 1 (got ${options.jitterRatio})`);
  }
  return options;
}

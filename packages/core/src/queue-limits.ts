/** Range of a queue's `concurrency` and `keyConcurrency`: jobs running at once. */
export const QUEUE_CONCURRENCY_RANGE = { minimum: 1, maximum: 100_000 } as const;

/** Range of a queue's `rateLimit.limit`: starts per window. */
export const RATE_LIMIT_RANGE = { minimum: 1, maximum: 1_000_000 } as const;

/** Range of a queue's `rateLimit.intervalMs`: the window, from 1 ms to 1 day (86,400,000 ms). */
export const RATE_INTERVAL_MS_RANGE = { minimum: 1, maximum: 86_400_000 } as const;

const LIMIT_EXPECTED = `an integer from ${RATE_LIMIT_RANGE.minimum} to ${RATE_LIMIT_RANGE.maximum}`;
const INTERVAL_EXPECTED = `a whole number of ms from ${RATE_INTERVAL_MS_RANGE.minimum} to ${RATE_INTERVAL_MS_RANGE.maximum} (1 day)`;

/** What each queue limit must be, in words: the end of "`/concurrency` must be …". */
export const QUEUE_LIMIT_EXPECTED = {
  concurrency: `an integer from ${QUEUE_CONCURRENCY_RANGE.minimum} to ${QUEUE_CONCURRENCY_RANGE.maximum}, or null for no limit`,
  keyConcurrency: `an integer from ${QUEUE_CONCURRENCY_RANGE.minimum} to ${QUEUE_CONCURRENCY_RANGE.maximum}, or null for no limit`,
  rateLimit: `{ "limit": ${LIMIT_EXPECTED}, "intervalMs": ${INTERVAL_EXPECTED} }, or null for no limit`,
  limit: LIMIT_EXPECTED,
  intervalMs: INTERVAL_EXPECTED,
} as const;

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const;

/**
 * Reads a rate as the CLI writes it: `<limit>/<interval>`, the interval a whole number with a
 * unit `ms`, `s`, `m` or `h` (`100/1s`, `5/250ms`, `1000/1m`); a bare unit means 1 of it (`10/s`).
 *
 * @returns the limit and the interval in ms
 * @throws Error naming what to fix, when the text is not such a rate or is out of range
 */
export function parseRate(text: string): { limit: number; intervalMs: number } {
  const match = /^(\d+)\/(\d*)(ms|s|m|h)$/.exec(text.trim());
  if (!match)
    throw new Error(`rate ${JSON.stringify(text)} must be <limit>/<interval>, such as 100/1s or 5/250ms`);
  const limit = Number(match[1]);
  const intervalMs = Number(match[2] || '1') * UNIT_MS[match[3] as keyof typeof UNIT_MS];
  if (!Number.isInteger(limit) || limit < RATE_LIMIT_RANGE.minimum || limit > RATE_LIMIT_RANGE.maximum)
    throw new Error(`rate limit ${limit} must be ${QUEUE_LIMIT_EXPECTED.limit}`);
  if (intervalMs < RATE_INTERVAL_MS_RANGE.minimum || intervalMs > RATE_INTERVAL_MS_RANGE.maximum)
    throw new Error(`rate interval ${intervalMs} ms must be ${QUEUE_LIMIT_EXPECTED.intervalMs}`);
  return { limit, intervalMs };
}

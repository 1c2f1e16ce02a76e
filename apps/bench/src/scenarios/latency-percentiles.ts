import { nearestRank } from '@nudge/core';

/** Percentiles of a set of latencies, in ms; `NaN` each when there were no samples. */
export interface LatencyPercentiles {
  /** Samples read. */
  readonly count: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly p99Ms: number;
}

/**
 * The 50th, 95th and 99th percentiles of `samplesMs` by nearest rank (the smallest sample with at
 * least that percent of samples at or below it, as `nearestRank` of `@nudge/core` defines it), so
 * each is a latency that was measured, never an interpolation. `samplesMs` is not modified.
 */
export function latencyPercentiles(samplesMs: readonly number[]): LatencyPercentiles {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const at = (percent: number): number => (sorted.length > 0 ? nearestRank(sorted, percent) : Number.NaN);
  return { count: sorted.length, p50Ms: at(50), p95Ms: at(95), p99Ms: at(99) };
}

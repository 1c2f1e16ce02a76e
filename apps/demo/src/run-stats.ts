import { nearestRank } from '@nudge/core';
import type { JobView } from '@nudge/client';

/** Throughput and latency of a set of finished jobs, from their database timestamps. */
export interface RunStats {
  /** Jobs counted. */
  readonly jobs: number;
  readonly succeeded: number;
  readonly failed: number;
  /** First `createdAt` to last `finishedAt`, in ms (database clock). */
  readonly wallMs: number;
  /** `jobs` per second of `wallMs`. */
  readonly jobsPerSecond: number;
  /** Enqueue → start latency (`startedAt − createdAt` of the latest attempt), nearest rank, in ms. */
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
}

function time(iso: string | null): number | undefined {
  if (iso === null) return undefined;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * Computes {@link RunStats} from job views; jobs that never started are left out of the latency.
 *
 * @throws RangeError when `views` is empty
 */
export function computeRunStats(views: readonly JobView[]): RunStats {
  if (views.length === 0) throw new RangeError('no jobs to measure');
  const created = views.map((v) => time(v.createdAt)).filter((t) => t !== undefined);
  const finished = views.map((v) => time(v.finishedAt)).filter((t) => t !== undefined);
  const latencies = views
    .flatMap((v) => {
      const start = time(v.startedAt);
      const enqueued = time(v.createdAt);
      return start === undefined || enqueued === undefined ? [] : [start - enqueued];
    })
    .sort((a, b) => a - b);
  const wallMs = Math.max(0, Math.max(...finished) - Math.min(...created));
  return {
    jobs: views.length,
    succeeded: views.filter((v) => v.status === 'SUCCEEDED').length,
    failed: views.filter((v) => v.status === 'FAILED').length,
    wallMs,
    jobsPerSecond: wallMs > 0 ? (views.length * 1000) / wallMs : Number.POSITIVE_INFINITY,
    latencyP50Ms: latencies.length > 0 ? nearestRank(latencies, 50) : Number.NaN,
    latencyP99Ms: latencies.length > 0 ? nearestRank(latencies, 99) : Number.NaN,
  };
}

import { setTimeout as sleep } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import type { BenchKind, BenchPayload } from '../bench-job.js';
import type { RunningSystem } from '../bench-system.js';
import type { ReportListener } from '../report/report-listener.js';
import { cpuPerJob, sampleCpu, type CpuSample } from '../cpu-accounting.js';
import { benchPayloads } from './bench-payloads.js';
import { waitUntilFinished } from './wait-until-finished.js';

/** Time allowed for reports that arrive after the storage shows every job completed, in ms. */
const LATE_REPORT_GRACE_MS = 200;

/** One drain. */
export interface DrainMeasurement {
  readonly jobs: number;
  /** From the enqueue call to its commit, in ms. */
  readonly enqueueMs: number;
  /** From the commit to the last handler report, in ms. */
  readonly drainMs: number;
  readonly jobsPerSecond: number;
  readonly lost: number;
  readonly duplicate: number;
  /** Whether the system's storage showed every job completed in time. */
  readonly confirmed: boolean;
  /** CPU per job from the commit to the last report, by part (Linux only). */
  readonly cpu?: CpuSample;
}

/**
 * What {@link measureDrain} needs of a system: a {@link RunningSystem} runs {@link BenchKind}s, a
 * `RunningNudge` also nudge's own kinds.
 */
export interface DrainTarget<K extends string = BenchKind> extends Pick<
  RunningSystem,
  'wake' | 'unfinished'
> {
  enqueueBatch(kind: K, payloads: readonly BenchPayload[]): Promise<void>;
}

/**
 * Enqueues `jobs` jobs of `kind` in one batch while the workers are idle, wakes them, and times
 * from the commit to the last handler report on this process's clock; then waits until the
 * system's storage shows every job completed, and counts lost and duplicated runs.
 */
export async function measureDrain<K extends string = BenchKind>(
  system: DrainTarget<K>,
  listener: ReportListener,
  kind: K,
  jobs: number,
  iterations?: number,
): Promise<DrainMeasurement> {
  const timeoutMs = 120_000 + jobs * 50;
  if (!(await waitUntilFinished(system, timeoutMs)))
    throw new Error('the system was not idle before the drain');
  const tally = listener.track(jobs);
  try {
    const payloads = benchPayloads(tally.run, 0, jobs, iterations);
    const enqueueStart = performance.now();
    await system.enqueueBatch(kind, payloads);
    const committed = performance.now();
    const cpuBefore = sampleCpu();
    await system.wake();
    await tally.waitFor(undefined, timeoutMs);
    const cpuAfter = sampleCpu();
    const drainMs = tally.lastAtMs - committed;
    const confirmed = await waitUntilFinished(system, timeoutMs);
    await sleep(LATE_REPORT_GRACE_MS);
    return {
      jobs,
      enqueueMs: committed - enqueueStart,
      drainMs,
      jobsPerSecond: (tally.distinct / drainMs) * 1000,
      ...tally.exactlyOnce(),
      confirmed,
      ...(cpuBefore && cpuAfter ? { cpu: cpuPerJob(cpuBefore, cpuAfter, jobs) } : {}),
    };
  } finally {
    tally.close();
  }
}

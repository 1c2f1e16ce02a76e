// One steady run: jobs arriving at a fixed rate, open loop, through one enqueue path.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchPayload } from '../../bench-job.js';
import type { RunningSystem } from '../../bench-system.js';
import type { ReportListener } from '../../report/report-listener.js';
import { latencyPercentiles, type LatencyPercentiles } from '../latency-percentiles.js';
import { waitUntilFinished } from '../wait-until-finished.js';
import { backlogOverWindow, keptUp, type Backlog } from './backlog.js';
import { runOpenLoop } from './open-loop-timetable.js';
import { readSteadyCpu, steadyCpuPerJob, type SteadyCpuPerJob } from './steady-cpu.js';

/** How long arrivals go on after the window closes, in ms, so its end sees no let-up in sends. */
const TAIL_MS = 500;

/** Options of {@link measureSteady}. */
export interface SteadyOptions {
  /** Jobs arriving a second. */
  readonly ratePerSecond: number;
  /** Arrivals before the window opens, in ms (not measured). */
  readonly warmUpMs: number;
  /** The measured window, in ms. */
  readonly windowMs: number;
  /** Enqueues one `io` job through the path measured, resolving once it has committed. */
  readonly enqueue: (payload: BenchPayload) => Promise<void>;
  /** URL of the PostgreSQL server's maintenance database, to find a database's backends. */
  readonly adminUrl: string;
}

/** What one steady run measured over its window. */
export interface SteadyRun {
  /** Jobs whose enqueue was called inside the window. */
  readonly windowJobs: number;
  readonly backlog: Backlog;
  /**
   * Of the backlog at the window's end, the jobs whose enqueue call had not yet returned: waiting
   * in the producer's path (its connection pool, the HTTP API) rather than in the queue.
   */
  readonly enqueuingAtEnd: number;
  /** Whether the backlog at the end was at most one second of arrivals (see `keptUp`). */
  readonly keptUp: boolean;
  /** Enqueue call → handler start of the window's jobs that started. */
  readonly latency: LatencyPercentiles;
  readonly cpu: SteadyCpuPerJob;
  /** The latest an enqueue was called after its time on the timetable, in ms. */
  readonly producerLagMs: number;
  /** Enqueue calls that failed, and the first one's message. */
  readonly failures: number;
  readonly firstError: string | undefined;
  /** Jobs of the whole run that never started, and extra runs. */
  readonly lost: number;
  readonly duplicate: number;
  /** Whether the system's storage showed every job completed afterwards. */
  readonly confirmed: boolean;
}

/**
 * Sends `io` jobs on a fixed timetable of `ratePerSecond` (open loop) for a warm-up, a measured
 * window and a short tail; reads CPU at the window's edges; then waits for every job to start and
 * be completed, and derives the backlog and enqueue → start latency of the window's jobs.
 */
export async function measureSteady(
  system: RunningSystem,
  listener: ReportListener,
  options: SteadyOptions,
): Promise<SteadyRun> {
  const { ratePerSecond, warmUpMs, windowMs } = options;
  const total = Math.ceil((ratePerSecond * (warmUpMs + windowMs + TAIL_MS)) / 1000);
  const tally = listener.track(total);
  try {
    const sending = runOpenLoop({
      ratePerSecond,
      total,
      send: (seq) => options.enqueue({ run: tally.run, seq }),
    });
    await sleep(warmUpMs);
    const before = await readSteadyCpu(system, options.adminUrl);
    const fromMs = performance.now();
    await sleep(windowMs);
    const toMs = performance.now();
    const after = await readSteadyCpu(system, options.adminUrl);
    const sent = await sending;
    // Jobs whose enqueue failed never start: then wait only a little for the others.
    const drainTimeoutMs = sent.failures > 0 ? 10_000 : 120_000 + total * 5;
    await tally.waitFor(undefined, drainTimeoutMs);
    const confirmed = await waitUntilFinished(system, drainTimeoutMs);

    const startedAtMs = Float64Array.from({ length: total }, (_, seq) => tally.firstAtMs(seq));
    const samplesMs: number[] = [];
    let windowJobs = 0;
    sent.sentAtMs.forEach((at, seq) => {
      if (!(at >= fromMs && at <= toMs)) return;
      windowJobs += 1;
      const started = startedAtMs[seq] ?? Number.NaN;
      if (!Number.isNaN(started)) samplesMs.push(started - at);
    });
    const backlog = backlogOverWindow(sent.sentAtMs, startedAtMs, fromMs, toMs);
    let enqueuingAtEnd = 0;
    sent.sentAtMs.forEach((at, seq) => {
      const done = sent.doneAtMs[seq] ?? Number.NaN;
      const started = startedAtMs[seq] ?? Number.NaN;
      if (at <= toMs && !(done <= toMs) && !(started <= toMs)) enqueuingAtEnd += 1;
    });
    return {
      windowJobs,
      backlog,
      enqueuingAtEnd,
      keptUp: keptUp(backlog, ratePerSecond),
      latency: latencyPercentiles(samplesMs),
      cpu: steadyCpuPerJob(before, after, windowJobs, system.storage.kind !== 'sqlite'),
      producerLagMs: sent.maxLagMs,
      failures: sent.failures,
      firstError: sent.firstError,
      ...tally.exactlyOnce(),
      confirmed,
    };
  } finally {
    tally.close();
  }
}

import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchPayload } from '../bench-job.js';
import type { RunningSystem } from '../bench-system.js';
import type { ReportListener } from '../report/report-listener.js';
import type { ExactlyOnce } from '../report/run-tally.js';
import { benchPayloads } from './bench-payloads.js';
import { waitUntilFinished } from './wait-until-finished.js';

/** Longest wait for one job to start, in ms. */
export const START_TIMEOUT_MS = 30_000;

/** Longest wait, once every job started, for the system's storage to show them all completed, in ms. */
const FINISH_TIMEOUT_MS = 60_000;

/** Options of {@link measureSequentialStarts}. */
export interface SequentialStartsOptions {
  /** Jobs to enqueue, one at a time. */
  readonly jobs: number;
  /** Enqueues one `latency` job through the path measured, resolving once it has committed. */
  readonly enqueue: (payload: BenchPayload) => Promise<void>;
  /**
   * The wait between one job's start and the next enqueue, in ms, called once per gap; none
   * (back to back) when unset.
   */
  readonly nextGapMs?: () => number;
}

/** What {@link measureSequentialStarts} saw. */
export interface SequentialStarts extends ExactlyOnce {
  /** Enqueue call → handler start of each job that started, in ms, in enqueue order. */
  readonly samplesMs: readonly number[];
  /** Jobs that did not start within {@link START_TIMEOUT_MS}. */
  readonly missed: number;
  /** Whether the system's storage showed every job completed afterwards. */
  readonly confirmed: boolean;
}

/**
 * Enqueues `jobs` `latency` jobs one after another, each once the previous one has started (after
 * `nextGapMs()` when given), and measures enqueue call → handler start on this process's clock:
 * "start" is the receipt of the handler's UDP report, sent first thing in the handler.
 */
export async function measureSequentialStarts(
  system: RunningSystem,
  listener: ReportListener,
  options: SequentialStartsOptions,
): Promise<SequentialStarts> {
  const tally = listener.track(options.jobs);
  const samplesMs: number[] = [];
  let missed = 0;
  try {
    for (const payload of benchPayloads(tally.run, 0, options.jobs)) {
      if (payload.seq > 0 && options.nextGapMs) await sleep(options.nextGapMs());
      const start = performance.now();
      await options.enqueue(payload);
      if (await tally.waitFor(payload.seq, START_TIMEOUT_MS))
        samplesMs.push(tally.firstAtMs(payload.seq) - start);
      else missed += 1;
    }
    const confirmed = await waitUntilFinished(system, FINISH_TIMEOUT_MS);
    return { samplesMs, missed, confirmed, ...tally.exactlyOnce() };
  } finally {
    tally.close();
  }
}

/** The notes a sequential measurement earns: jobs that never started, storage that disagreed. */
export function sequentialStartNotes(starts: SequentialStarts): string[] {
  return [
    ...(starts.missed > 0 ? [`${starts.missed} job(s) did not start within ${START_TIMEOUT_MS} ms`] : []),
    ...(starts.confirmed ? [] : ['storage did not confirm every job']),
  ];
}

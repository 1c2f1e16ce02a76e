import { jobLogLineBytes } from '@nudge/core';
import type { JobLogAppend, JobLogCaps } from './log-types.js';

/** A job's log counters as an append finds them. */
export interface JobLogCounts {
  readonly lines: number;
  readonly bytes: number;
  readonly dropped: number;
}

/** What of an append fits its job's caps: the first `kept` lines (with their bytes), the rest dropped. */
export interface JobLogFit {
  readonly kept: number;
  readonly keptBytes: number;
  /** Lines over the caps, and those the attempt dropped before the store. */
  readonly dropped: number;
}

/**
 * Which lines of `append` a job with `counts` keeps under `caps`: lines are kept in order while
 * the job stays within both caps; the first line that would pass either cap, and every later line
 * of the job, is dropped and counted (the log keeps its beginning, and never has a gap). Both
 * dialects decide with this, under the lock of the job's counters.
 */
export function fitJobLogAppend(append: JobLogAppend, counts: JobLogCounts, caps: JobLogCaps): JobLogFit {
  let kept = 0;
  let keptBytes = 0;
  for (const line of counts.dropped > 0 ? [] : append.lines) {
    const bytes = jobLogLineBytes(line);
    if (counts.lines + kept + 1 > caps.linesPerJob || counts.bytes + keptBytes + bytes > caps.bytesPerJob)
      break;
    kept += 1;
    keptBytes += bytes;
  }
  return { kept, keptBytes, dropped: append.lines.length - kept + (append.dropped ?? 0) };
}

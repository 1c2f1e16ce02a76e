import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * When send `index` (from 0) is due on a fixed timetable of `ratePerSecond` sends a second, in ms
 * after the first: `index × 1000 ÷ rate`.
 */
export function sendAtMs(index: number, ratePerSecond: number): number {
  return (index * 1000) / ratePerSecond;
}

/**
 * How many sends of a timetable of `ratePerSecond` are due `elapsedMs` after it began: every send
 * whose time has come, the first at 0 ms, at most `total`.
 */
export function dueSends(elapsedMs: number, ratePerSecond: number, total: number): number {
  if (elapsedMs < 0) return 0;
  return Math.min(total, Math.floor((elapsedMs * ratePerSecond) / 1000) + 1);
}

/** Options of {@link runOpenLoop}. */
export interface OpenLoopOptions {
  /** Sends a second. */
  readonly ratePerSecond: number;
  /** Sends in all. */
  readonly total: number;
  /**
   * Makes send `index`; called when it is due, never awaited before the next one (open loop).
   * Resolves once the system has the job.
   */
  readonly send: (index: number) => Promise<void>;
}

/** What {@link runOpenLoop} did. */
export interface OpenLoopRun {
  /** `performance.now()` of the timetable's start, in ms. */
  readonly startedAtMs: number;
  /** `performance.now()` of each send's call, in ms, by index. */
  readonly sentAtMs: Float64Array;
  /** `performance.now()` when each send resolved, in ms, by index; `NaN` for one that rejected. */
  readonly doneAtMs: Float64Array;
  /** Sends whose promise rejected. */
  readonly failures: number;
  /** The first rejection's message, if any. */
  readonly firstError: string | undefined;
  /** The latest any send was called after its time on the timetable, in ms. */
  readonly maxLagMs: number;
}

/**
 * Calls `send` on a fixed timetable (see {@link sendAtMs}) without waiting for earlier sends: an
 * open-loop producer, as arrivals from many users are. Sends that fall due while this process was
 * busy go out at once, in order. Resolves once every send has been made and has settled.
 */
export async function runOpenLoop(options: OpenLoopOptions): Promise<OpenLoopRun> {
  const { ratePerSecond, total, send } = options;
  const sentAtMs = new Float64Array(total).fill(Number.NaN);
  const doneAtMs = new Float64Array(total).fill(Number.NaN);
  const pending: Promise<void>[] = [];
  let failures = 0;
  let firstError: string | undefined;
  let maxLagMs = 0;
  const startedAtMs = performance.now();
  let next = 0;
  while (next < total) {
    const now = performance.now();
    const due = dueSends(now - startedAtMs, ratePerSecond, total);
    for (; next < due; next += 1) {
      sentAtMs[next] = now;
      maxLagMs = Math.max(maxLagMs, now - startedAtMs - sendAtMs(next, ratePerSecond));
      const index = next;
      pending.push(
        send(index).then(
          () => {
            doneAtMs[index] = performance.now();
          },
          (error: unknown) => {
            failures += 1;
            firstError ??= (error as Error).message;
          },
        ),
      );
    }
    if (next < total)
      await sleep(Math.max(0, startedAtMs + sendAtMs(next, ratePerSecond) - performance.now()));
  }
  await Promise.all(pending);
  return { startedAtMs, sentAtMs, doneAtMs, failures, firstError, maxLagMs };
}

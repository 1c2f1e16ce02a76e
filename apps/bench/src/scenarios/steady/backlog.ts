/** The backlog over a window: jobs sent and not yet started. */
export interface Backlog {
  /** At the window's end. */
  readonly atEnd: number;
  /** The largest at any moment of the window. */
  readonly max: number;
}

/**
 * The backlog (jobs sent but not started) over `[fromMs, toMs]`, from each job's send time and
 * start time (`NaN`: never started), all on one clock, in ms. Jobs sent before the window count
 * while they wait; the backlog only changes at a send or a start, so it is exact, not sampled.
 */
export function backlogOverWindow(
  sentAtMs: ArrayLike<number>,
  startedAtMs: ArrayLike<number>,
  fromMs: number,
  toMs: number,
): Backlog {
  // +1 at each send, −1 at each start; at one instant, starts first (a job cannot wait 0 ms).
  const events: [number, number][] = [];
  let level = 0;
  for (let i = 0; i < sentAtMs.length; i += 1) {
    const sent = sentAtMs[i] ?? Number.NaN;
    if (Number.isNaN(sent) || sent > toMs) continue;
    const started = startedAtMs[i] ?? Number.NaN;
    const startedBy = !Number.isNaN(started) && started <= toMs;
    if (sent <= fromMs) {
      if (!startedBy || started > fromMs) level += 1;
      if (startedBy && started > fromMs) events.push([started, -1]);
    } else {
      events.push([sent, 1]);
      if (startedBy) events.push([Math.max(started, sent), -1]);
    }
  }
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let max = level;
  for (const [, delta] of events) {
    level += delta;
    if (level > max) max = level;
  }
  return { atEnd: level, max };
}

/**
 * Whether a system kept up with `ratePerSecond` arrivals: its backlog at the window's end is at
 * most one second of arrivals. A system that falls behind grows its backlog by the shortfall every
 * second, so after a 20 s window it holds many seconds of arrivals.
 */
export function keptUp(backlog: Backlog, ratePerSecond: number): boolean {
  return backlog.atEnd <= ratePerSecond;
}

import type { NudgeKind } from '../bench-job.js';
import type { RunningNudge } from '../nudge/nudge-system.js';
import type { ReportListener } from '../report/report-listener.js';
import { SCRAPE_STORE_METHODS, storeCalls } from './idle-load.js';
import { measureDrain, type DrainMeasurement } from './measure-drain.js';

/**
 * Store methods that reach no database: `onIsolatedWrite` registers a listener (the outcome writer
 * calls it once per batch of outcomes).
 */
export const NO_DATABASE_METHODS: ReadonlySet<string> = new Set(['onIsolatedWrite']);

/** A drain with the store calls the servers made during it. */
export interface CountedDrain extends DrainMeasurement {
  /**
   * Store calls by method between a `/metrics` scrape before the enqueue and one after the
   * storage showed every job finished (`nudge_store_calls_total`, summed over the servers), the
   * scrapes' own calls ({@link SCRAPE_STORE_METHODS}) and {@link NO_DATABASE_METHODS} left out.
   * Each call is one statement or one transaction, a few are more (see `countStoreCalls` in
   * @nudge/store).
   */
  readonly calls: ReadonlyMap<string, number>;
}

/** Store calls of every method in `calls`, summed. */
export function totalCalls(calls: ReadonlyMap<string, number>): number {
  let total = 0;
  for (const count of calls.values()) total += count;
  return total;
}

/** {@link measureDrain} of `kind` on nudge, with the servers' store calls during it. */
export async function countedDrain(
  system: RunningNudge,
  listener: ReportListener,
  kind: NudgeKind,
  jobs: number,
): Promise<CountedDrain> {
  const before = await storeCalls(system.serverUrls);
  const run = await measureDrain(system, listener, kind, jobs);
  const after = await storeCalls(system.serverUrls);
  const calls = new Map<string, number>();
  for (const [method, count] of after) {
    if (SCRAPE_STORE_METHODS.has(method) || NO_DATABASE_METHODS.has(method)) continue;
    const delta = count - (before.get(method) ?? 0);
    if (delta > 0) calls.set(method, delta);
  }
  return { ...run, calls };
}

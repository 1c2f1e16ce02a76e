// CPU time of given processes and of the whole machine, read from Linux `/proc`.
import { readdirSync, readFileSync } from 'node:fs';
import { parseMachineBusyTicks, parseProcessStatTicks, ticksToMs } from './cpu-accounting.js';

/**
 * CPU time process `pid` has used so far, all its threads, in ms; `undefined` when it has ended
 * or this is not Linux.
 */
export function processCpuMs(pid: number): number | undefined {
  try {
    return ticksToMs(parseProcessStatTicks(readFileSync(`/proc/${pid}/stat`, 'utf8')));
  } catch {
    return undefined;
  }
}

/** {@link processCpuMs} of each of `pids` that is alive, by pid. */
export function processesCpuMs(pids: Iterable<number>): Map<number, number> {
  const times = new Map<number, number>();
  for (const pid of pids) {
    const ms = processCpuMs(pid);
    if (ms !== undefined) times.set(pid, ms);
  }
  return times;
}

/** Ids of the processes whose command name (`/proc/<pid>/comm`) is `comm`, such as `redis-server`. */
export function pidsNamed(comm: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      if (readFileSync(`/proc/${name}/comm`, 'utf8').trim() === comm) pids.push(Number(name));
    } catch {
      // The process ended while being read.
    }
  }
  return pids;
}

/** Busy time of every core since boot, in ms (see `parseMachineBusyTicks`). */
export function machineBusyMs(): number {
  return ticksToMs(parseMachineBusyTicks(readFileSync('/proc/stat', 'utf8')));
}

/**
 * CPU used between two readings of {@link processesCpuMs}, in ms: each process in `after` less its
 * time in `before` (0 for a process that started in between). Processes that ended in between drop
 * out, so read while the processes of interest are up.
 */
export function cpuMsBetween(
  before: ReadonlyMap<number, number>,
  after: ReadonlyMap<number, number>,
): number {
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}

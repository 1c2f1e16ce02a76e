import { readdirSync, readFileSync } from 'node:fs';

/** CPU time used so far, in ms, by the parts of a run that matter (Linux `/proc`). */
export interface CpuSample {
  /** Every core's busy time since boot. */
  readonly machineMs: number;
  /** Every `postgres` process alive now (server, backends, writers). */
  readonly postgresMs: number;
  /** Every nudge server process alive now (`apps/server/dist/main.js`), all threads. */
  readonly nudgeMs: number;
  /** This (the bench's) process. */
  readonly benchMs: number;
}

/** Clock ticks per second of `/proc` counters (`USER_HZ`, 100 on Linux). */
export const TICKS_PER_SECOND = 100;

/** `ticks` of `/proc` (see {@link TICKS_PER_SECOND}) in ms. */
export function ticksToMs(ticks: number): number {
  return (ticks * 1000) / TICKS_PER_SECOND;
}

/**
 * CPU time a process has used, all threads, in ticks: `utime + stime` (fields 14 and 15) of its
 * `/proc/<pid>/stat` line, read after the command name's closing parenthesis, since the name itself
 * may hold spaces and parentheses (proc(5)).
 */
export function parseProcessStatTicks(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/**
 * Busy time of every core since boot, in ticks, from `/proc/stat`'s first (`cpu`) line: user, nice,
 * system, irq, softirq and steal; idle and iowait left out, guest time already inside user (proc(5)).
 */
export function parseMachineBusyTicks(procStat: string): number {
  const [, ...counters] = procStat.split('\n')[0]?.trim().split(/\s+/) ?? [];
  const values = counters.map(Number);
  const idle = (values[3] ?? 0) + (values[4] ?? 0);
  return values.slice(0, 8).reduce((sum, v) => sum + v, 0) - idle;
}

function processTicks(pid: string): number {
  return parseProcessStatTicks(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

/**
 * Samples CPU time now, or returns `undefined` off Linux. Processes that end between two samples
 * drop out of the difference, so sample while the connections and servers of interest are up.
 */
export function sampleCpu(): CpuSample | undefined {
  if (process.platform !== 'linux') return undefined;
  const machineTicks = parseMachineBusyTicks(readFileSync('/proc/stat', 'utf8'));
  let postgres = 0;
  let nudge = 0;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      if (comm === 'postgres') postgres += processTicks(pid);
      else if (
        comm === 'node' &&
        readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('apps/server/dist/main.js')
      )
        nudge += processTicks(pid);
    } catch {
      // The process ended while being read.
    }
  }
  const bench = process.cpuUsage();
  const toMs = ticksToMs;
  return {
    machineMs: toMs(machineTicks),
    postgresMs: toMs(postgres),
    nudgeMs: toMs(nudge),
    benchMs: (bench.user + bench.system) / 1000,
  };
}

/** CPU per job between two samples, in µs per job, by part. */
export function cpuPerJob(before: CpuSample, after: CpuSample, jobs: number): CpuSample {
  const per = (key: keyof CpuSample): number => ((after[key] - before[key]) * 1000) / jobs;
  return {
    machineMs: per('machineMs'),
    postgresMs: per('postgresMs'),
    nudgeMs: per('nudgeMs'),
    benchMs: per('benchMs'),
  };
}

/** `postgres 25 µs, nudge 11 µs, bench 6 µs, machine 45 µs` for a {@link cpuPerJob} result. */
export function describeCpuPerJob(cpu: CpuSample, withNudge = true): string {
  const parts = [`postgres ${cpu.postgresMs.toFixed(0)} µs`];
  if (withNudge) parts.push(`nudge ${cpu.nudgeMs.toFixed(0)} µs`);
  parts.push(`bench client ${cpu.benchMs.toFixed(0)} µs`, `whole machine ${cpu.machineMs.toFixed(0)} µs`);
  return `CPU per job: ${parts.join(', ')}`;
}

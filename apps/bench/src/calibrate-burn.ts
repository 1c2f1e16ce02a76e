import { burnCpu } from './burn-cpu.js';

/** A {@link burnCpu} loop size and what one job of that size costs on this machine. */
export interface BurnCalibration {
  /** Loop rounds per job. */
  readonly iterations: number;
  /** CPU time (user + system) one job takes, in ms, measured with `process.cpuUsage`. */
  readonly cpuMsPerJob: number;
  /** Jobs the cost was averaged over. */
  readonly sampleJobs: number;
}

function cpuMs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

/**
 * Sizes the burn loop so one job takes about `targetCpuMs` of CPU in this process, then measures
 * the real per-job cost over `sampleJobs` jobs (after a warm-up, so the loop is optimized).
 */
export function calibrateBurn(targetCpuMs: number, sampleJobs = 50): BurnCalibration {
  for (let i = 0; i < 5; i += 1) burnCpu(1_000_000);
  const probeIterations = 20_000_000;
  const probeStart = process.cpuUsage();
  burnCpu(probeIterations);
  const msPerIteration = cpuMs(probeStart) / probeIterations;
  const iterations = Math.max(1, Math.round(targetCpuMs / msPerIteration));
  const start = process.cpuUsage();
  for (let i = 0; i < sampleJobs; i += 1) burnCpu(iterations);
  return { iterations, cpuMsPerJob: cpuMs(start) / sampleJobs, sampleJobs };
}

/**
 * This process's monotonic clock, in ms: the same in every thread of the process (it is
 * `process.hrtime`, which libuv reads from `CLOCK_MONOTONIC`), unlike `performance.now()`, whose
 * origin is each thread's start. It keeps counting while the process is stopped.
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint() / 1000n) / 1000;
}

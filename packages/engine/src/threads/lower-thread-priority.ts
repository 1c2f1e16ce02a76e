import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * Lowers the calling thread's scheduling priority by `increment` (a higher `nice`), so that it
 * yields the CPU to the threads that coordinate work: the service's main thread (claims,
 * heartbeats, the HTTP API) and a database on the same host. A thread's id comes from
 * `/proc/thread-self`; on Linux `setpriority` on a thread id affects that thread alone.
 * Elsewhere, or when the system refuses, it does nothing: the priority is a refinement.
 *
 * @returns whether the priority was lowered
 */
export function lowerThreadPriority(increment: number): boolean {
  if (increment <= 0 || process.platform !== 'linux') return false;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid)) return false;
    setPriority(tid, Math.min(19, getPriority(tid) + increment));
    return true;
  } catch {
    return false;
  }
}

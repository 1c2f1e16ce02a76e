import type { JobLease, Store } from '@nudge/store';

/** How often the heartbeat renews leases: every third of the lease, in ms. */
export function heartbeatIntervalMs(leaseMs: number): number {
  return Math.floor(leaseMs / 3);
}

/**
 * Whether a round trip that took `tookMs` (ms, by this process's monotonic clock) may have
 * outlived the leases it dealt with: it took longer than a heartbeat interval, so this process
 * may have been stopped (SIGSTOP, a paused VM) or starved meanwhile, its heartbeats with it.
 */
export function outlivedHeartbeat(tookMs: number, leaseMs: number): boolean {
  return tookMs > heartbeatIntervalMs(leaseMs);
}

/**
 * Renews `leases` now, in one heartbeat statement, and returns the ones still held, as
 * `<id>:<version>` keys. A lease not held belongs to a newer attempt (or the sweep, or a cancel):
 * nothing of its attempt may start any more.
 * @throws what the store throws when the database cannot be reached
 */
export async function confirmLeases(
  store: Store,
  leases: readonly JobLease[],
  leaseMs: number,
): Promise<Set<string>> {
  const held = await store.heartbeat(leases, leaseMs);
  return new Set(held.map(leaseKey));
}

/** `<id>:<version>`: a lease as a set key. */
export function leaseKey(lease: JobLease): string {
  return `${lease.id}:${lease.version}`;
}

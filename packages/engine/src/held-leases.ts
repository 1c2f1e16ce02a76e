import type { JobLease } from '@nudge/store';

/**
 * The leases this instance holds, one per job: of running attempts, of finished ones until their
 * outcome is written, and of re-claims waiting to start. The heartbeat renews them.
 */
export class HeldLeases {
  readonly #leases = new Map<number, JobLease>();

  /** Holds `lease`, in place of any older lease of its job. */
  hold(lease: JobLease): void {
    this.#leases.set(lease.id, lease);
  }

  /** Whether `lease` (that job at that version) is held. */
  holds(lease: JobLease): boolean {
    return this.#leases.get(lease.id)?.version === lease.version;
  }

  /** Stops holding `lease`, unless a newer lease of its job took its place. */
  drop(lease: JobLease): void {
    if (this.holds(lease)) this.#leases.delete(lease.id);
  }

  /** Every lease held. */
  list(): JobLease[] {
    return [...this.#leases.values()];
  }
}

import type { Logger } from '@nudge/core';
import type { ClaimedJob, JobLease, Store } from '@nudge/store';
import type { EmitEngineEvent } from './engine-events.js';
import type { HeartbeatResult } from './service-results.js';

export type { HeartbeatResult } from './service-results.js';
import { PeriodicTimer } from './periodic-timer.js';
import { jobLogFields } from './job-log-fields.js';
import { heartbeatIntervalMs } from './lease-confirmation.js';

/** Options of a {@link LeaseKeeper}. */
export interface LeaseKeeperOptions {
  readonly store: Store;
  readonly logger: Logger;
  readonly emit: EmitEngineEvent;
  /** Lease length, in ms; the keeper renews every third of it. */
  readonly leaseMs: number;
  /** The leases this instance holds now. */
  readonly leases: () => JobLease[];
  /**
   * Leases not found: abort the attempts still running under them, as cancelled for the ids in
   * `cancelled`. @returns the leases aborted
   */
  readonly onLost: (leases: readonly JobLease[], cancelled: ReadonlySet<number>) => ClaimedJob[];
}

/**
 * Heartbeats, every third of the lease, while this instance holds jobs: renews the leases of its
 * attempts in one statement and aborts attempts whose lease is gone (fenced out by a newer
 * version, or cancelled: a cancel reaches the instance running the job within one heartbeat). An
 * instance holding nothing writes nothing then.
 */
export class LeaseKeeper {
  readonly name = 'lease-keeper';
  /** Stops only after the last attempt: a draining attempt's lease is renewed to its end. */
  readonly outlivesAttempts = true;
  readonly #options: LeaseKeeperOptions;
  readonly #timer: PeriodicTimer;
  #renewing = true;

  constructor(options: LeaseKeeperOptions) {
    this.#options = options;
    this.#timer = new PeriodicTimer(
      () => this.#beat(),
      heartbeatIntervalMs(options.leaseMs),
      (error) => options.logger.error({ err: error }, 'heartbeat failed; leases may expire if this persists'),
      0,
    );
  }

  /** Heartbeats on a timer. */
  start(): void {
    this.#timer.start();
  }

  /** Stops heartbeating; a beat in progress finishes. */
  stop(): void {
    this.#timer.stop();
  }

  /** One heartbeat, now. */
  runOnce(): Promise<HeartbeatResult> {
    return this.#renew();
  }

  /** A beat of the timer. */
  async #beat(): Promise<HeartbeatResult> {
    try {
      const result = await this.#renew();
      this.#renewing = true;
      return result;
    } catch (error) {
      this.#renewing = false;
      throw error;
    }
  }

  /**
   * Whether the last beat renewed this instance's leases (or found none to renew). False from a
   * failed beat until one succeeds: after an outage this instance's own leases may have lapsed
   * only because it could not reach the database, and the sweep waits for them to be renewed.
   */
  get renewing(): boolean {
    return this.#renewing;
  }

  async #renew(): Promise<HeartbeatResult> {
    const { store } = this.#options;
    const leases = this.#options.leases();
    let result: HeartbeatResult = { renewed: 0, lost: 0 };
    if (leases.length > 0) {
      const held = await store.heartbeat(leases, this.#options.leaseMs);
      const heldIds = new Set(held.map((lease) => lease.id));
      const gone = leases.filter((lease) => !heldIds.has(lease.id));
      // A lease whose outcome was written during the heartbeat is gone too, and that is no loss.
      const cancelled = gone.length === 0 ? new Set<number>() : await this.#cancelledAmong(gone);
      const lost = gone.length === 0 ? [] : this.#options.onLost(gone, cancelled);
      for (const lease of lost) {
        if (cancelled.has(lease.id)) {
          this.#options.logger.info(jobLogFields(lease), 'job cancelled: aborting the attempt');
          this.#options.emit('job:cancelled', { id: lease.id, version: lease.version });
        } else {
          this.#options.logger.warn(jobLogFields(lease), 'lease lost: aborting the attempt');
          this.#options.emit('job:lease-lost', { id: lease.id, version: lease.version });
        }
      }
      result = { renewed: held.length, lost: lost.length };
    }
    this.#options.emit('heartbeat:done', result);
    return result;
  }

  /** Ids among `leases` whose job is `CANCELLED` now (one read, only when leases were lost). */
  async #cancelledAmong(leases: readonly JobLease[]): Promise<Set<number>> {
    const jobs = await this.#options.store.listJobs({ ids: leases.map((l) => l.id), limit: leases.length });
    return new Set(jobs.filter((job) => job.status === 'CANCELLED').map((job) => job.id));
  }
}

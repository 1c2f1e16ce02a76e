import type { Logger } from '@nudge/core';
import type { ClaimedJob, InstanceInput, JobLease, Store } from '@nudge/store';
import type { EmitEngineEvent } from './engine-events.js';
import type { HeartbeatResult } from './service-results.js';

export type { HeartbeatResult } from './service-results.js';
import { PeriodicTimer } from './periodic-timer.js';
import { jobLogFields } from './job-log-fields.js';

/** Options of a {@link LeaseKeeper}. */
export interface LeaseKeeperOptions {
  readonly store: Store;
  readonly logger: Logger;
  readonly emit: EmitEngineEvent;
  /** Lease length, in ms; the keeper renews every third of it. */
  readonly leaseMs: number;
  /**
   * Rows of the registry not seen for this long, in ms, belong to dead instances and are deleted
   * on every fifth refresh of the registry row. @defaultValue 10 × `leaseMs` (a live instance
   * refreshes its row 5 times in it)
   */
  readonly expireInstancesAfterMs?: number;
  /** This instance, as the registry records it. */
  readonly instance: InstanceInput;
  /** The leases this instance holds now. */
  readonly leases: () => JobLease[];
  /**
   * Leases not found: abort the attempts still running under them, as cancelled for the ids in
   * `cancelled`. @returns the leases aborted
   */
  readonly onLost: (leases: readonly JobLease[], cancelled: ReadonlySet<number>) => ClaimedJob[];
}

/** Refreshes of the registry row per deletion of dead instances' rows. */
const PRUNE_EVERY_REFRESHES = 5;

/** Time between refreshes of an instance's registry row, in ms: two leases (a minute by default). */
export function registryRefreshMs(leaseMs: number): number {
  return 2 * leaseMs;
}

/**
 * How recently an instance must have refreshed its registry row to count as live, in ms: three
 * refreshes (six leases, three minutes by default), so one late or failed refresh is no death.
 */
export function instanceLiveWithinMs(leaseMs: number): number {
  return 3 * registryRefreshMs(leaseMs);
}

/**
 * Heartbeats, every third of the lease, while this instance holds jobs: renews the leases of its
 * attempts in one statement and aborts attempts whose lease is gone (fenced out by a newer
 * version, or cancelled: a cancel reaches the instance running the job within one heartbeat). An
 * instance holding nothing writes nothing then. On its own slower clock
 * ({@link registryRefreshMs}) it keeps this instance's row in the registry fresh (re-registering
 * it if it vanished) and deletes the rows of instances not seen for `expireInstancesAfterMs`
 * (dead without unregistering).
 */
export class LeaseKeeper {
  readonly #options: LeaseKeeperOptions;
  readonly #timer: PeriodicTimer;
  #registered = false;
  /** When the registry row was last refreshed, on the `performance.now()` clock, in ms. */
  #refreshedAt = Number.NEGATIVE_INFINITY;
  #refreshes = 0;
  #renewing = true;

  constructor(options: LeaseKeeperOptions) {
    this.#options = options;
    this.#timer = new PeriodicTimer(
      () => this.#beat(),
      Math.floor(options.leaseMs / 3),
      (error) => options.logger.error({ err: error }, 'heartbeat failed; leases may expire if this persists'),
      0,
    );
  }

  /** Whether this instance's row is known to be in the registry. */
  get registered(): boolean {
    return this.#registered;
  }

  /** Registers this instance, then heartbeats on a timer. */
  start(): void {
    this.#timer.start();
    this.#refreshedAt = performance.now();
    this.#register().catch((error: unknown) =>
      this.#options.logger.error({ err: error }, 'registering this instance failed; the heartbeat retries'),
    );
  }

  /** Stops heartbeating; a beat in progress finishes. */
  stop(): void {
    this.#timer.stop();
  }

  /** Deletes this instance's row (shutdown). */
  async unregister(): Promise<void> {
    this.#registered = false;
    await this.#options.store.removeInstance(this.#options.instance.id);
  }

  /** One heartbeat, now, with a refresh of the registry row whether it is due or not. */
  async runOnce(): Promise<HeartbeatResult> {
    await this.#refreshRegistry();
    return this.#renew();
  }

  /** A beat of the timer: the registry row when its refresh is due, the leases when any are held. */
  async #beat(): Promise<HeartbeatResult> {
    try {
      if (performance.now() - this.#refreshedAt >= registryRefreshMs(this.#options.leaseMs))
        await this.#refreshRegistry();
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

  async #refreshRegistry(): Promise<void> {
    const { store } = this.#options;
    this.#refreshedAt = performance.now();
    if (!(await store.touchInstance(this.#options.instance.id))) await this.#register();
    // Dead rows wait: deleting them is tidiness, and a refresh with nothing else is one statement.
    if (this.#refreshes++ % PRUNE_EVERY_REFRESHES !== 0) return;
    const expired = await store.pruneInstances(
      this.#options.expireInstancesAfterMs ?? 10 * this.#options.leaseMs,
    );
    if (expired > 0) this.#options.logger.info({ expired }, 'deleted the registry rows of dead instances');
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

  async #register(): Promise<void> {
    await this.#options.store.registerInstance(this.#options.instance);
    this.#registered = true;
  }
}

import type { Logger } from '@nudge/core';
import type { InstanceInput, Store } from '@nudge/store';
import { PeriodicTimer } from './periodic-timer.js';

/** Options of an {@link InstanceRegistry}. */
export interface InstanceRegistryOptions {
  readonly store: Store;
  readonly logger: Logger;
  /** Lease length, in ms: the row is refreshed every {@link registryRefreshMs} of it. */
  readonly leaseMs: number;
  /**
   * Rows of the registry not seen for this long, in ms, belong to dead instances and are deleted
   * on every fifth refresh. @defaultValue 10 × `leaseMs` (a live instance refreshes its row 5
   * times in it)
   */
  readonly expireInstancesAfterMs?: number;
  /** This instance, as the registry records it. */
  readonly instance: InstanceInput;
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
 * Keeps this instance's row in `nudge_instances` (its kinds, queues, slots and version, read by
 * `GET /instances` and by the unhandled-kinds check): registers it on start, refreshes it every
 * {@link registryRefreshMs} (re-registering it if it vanished), deletes the rows of instances not
 * seen for `expireInstancesAfterMs` (dead without unregistering), and deletes its own row on
 * {@link unregister}.
 */
export class InstanceRegistry {
  readonly name = 'instance-registry';
  /** Stops only after the last attempt: a draining instance still counts as live. */
  readonly outlivesAttempts = true;
  readonly #options: InstanceRegistryOptions;
  readonly #timer: PeriodicTimer;
  #registered = false;
  #started = false;
  #refreshes = 0;

  constructor(options: InstanceRegistryOptions) {
    this.#options = options;
    this.#timer = new PeriodicTimer(
      () => this.runOnce(),
      registryRefreshMs(options.leaseMs),
      (error) => options.logger.error({ err: error }, 'refreshing the instance registry failed; it retries'),
    );
  }

  /** Whether this instance's row is known to be in the registry. */
  get registered(): boolean {
    return this.#registered;
  }

  /** Registers this instance, then refreshes its row on a timer. */
  start(): void {
    this.#started = true;
    this.#timer.start();
    this.#register().catch((error: unknown) =>
      this.#options.logger.error(
        { err: error },
        'registering this instance failed; the next refresh retries',
      ),
    );
  }

  /** Stops refreshing; see {@link unregister} to leave the registry. */
  stop(): void {
    this.#timer.stop();
  }

  /** Deletes this instance's row (shutdown), when it was started. */
  async unregister(): Promise<void> {
    if (!this.#started) return;
    this.#registered = false;
    await this.#options.store.removeInstance(this.#options.instance.id);
  }

  /**
   * One refresh, now: touches the row (registering it again if it vanished) and, on every fifth
   * refresh, deletes the rows of dead instances.
   * @returns how many dead instances' rows were deleted
   */
  async runOnce(): Promise<{ expired: number }> {
    const { store } = this.#options;
    if (!(await store.touchInstance(this.#options.instance.id))) await this.#register();
    // Dead rows wait: deleting them is tidiness, and a refresh with nothing else is one statement.
    if (this.#refreshes++ % PRUNE_EVERY_REFRESHES !== 0) return { expired: 0 };
    const expired = await store.pruneInstances(
      this.#options.expireInstancesAfterMs ?? 10 * this.#options.leaseMs,
    );
    if (expired > 0) this.#options.logger.info({ expired }, 'deleted the registry rows of dead instances');
    return { expired };
  }

  async #register(): Promise<void> {
    await this.#options.store.registerInstance(this.#options.instance);
    this.#registered = true;
  }
}

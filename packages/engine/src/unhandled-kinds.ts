import type { Logger } from '@nudge/core';
import type { Store } from '@nudge/store';
import type { EmitEngineEvent } from './engine-events.js';
import type { UnhandledKindsRun } from './service-results.js';

export type { UnhandledKindsRun } from './service-results.js';
import { PeriodicTimer } from './periodic-timer.js';

/** Options of an {@link UnhandledKindsFailer}. */
export interface UnhandledKindsOptions {
  readonly store: Store;
  readonly logger: Logger;
  readonly emit: EmitEngineEvent;
  /** How long a due job may wait while no live instance handles its kind, in ms. */
  readonly graceMs: number;
  /** An instance is live when it heartbeated within this many ms. */
  readonly instanceTtlMs: number;
  /** Whether this instance is in the registry yet: until it is, its own kinds would look orphaned. */
  readonly registered: () => boolean;
}

/**
 * Fails jobs that no instance can run. Claims only take kinds the instance has handlers for, so
 * in a rolling deploy an old instance never claims a kind only the new version knows; a job whose
 * kind no live instance (in the registry, refreshed by heartbeats) handles would otherwise wait
 * silently forever. After `graceMs` of being due it is failed with a message naming its kind and
 * the kinds handled now. Runs every quarter of the grace (between 100 ms and one minute).
 */
export class UnhandledKindsFailer {
  readonly #options: UnhandledKindsOptions;
  readonly #timer: PeriodicTimer;

  constructor(options: UnhandledKindsOptions) {
    this.#options = options;
    this.#timer = new PeriodicTimer(
      () => this.runOnce(),
      Math.min(60_000, Math.max(100, Math.floor(options.graceMs / 4))),
      (error) => options.logger.error({ err: error }, 'checking for unhandled kinds failed'),
    );
  }

  readonly name = 'unhandled-kinds';

  start(): void {
    if (this.#options.graceMs > 0) this.#timer.start();
  }

  stop(): void {
    this.#timer.stop();
  }

  /** One run, now; does nothing until this instance is registered. */
  async runOnce(): Promise<UnhandledKindsRun> {
    if (!this.#options.registered()) return { failed: 0, kinds: [] };
    const result = await this.#options.store.failUnhandledKinds({
      graceMs: this.#options.graceMs,
      instanceTtlMs: this.#options.instanceTtlMs,
    });
    if (result.failed > 0) {
      this.#options.logger.warn(
        { ...result },
        `failed ${result.failed} job(s) whose kind no running instance handles: ${result.kinds.join(', ')}`,
      );
      this.#options.emit('unhandled:failed', result);
    }
    return result;
  }
}

import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Logger, TerminalStatus } from '@nudge/core';
import type { Store } from '@nudge/store';
import type { EmitEngineEvent } from './engine-events.js';
import type { PruneResult } from './service-results.js';

export type { PruneResult } from './service-results.js';
import { PeriodicTimer } from './periodic-timer.js';
import { retentionAgeMs, type RetentionPolicy } from './retention-policy.js';

/**
 * Rows one delete takes: about 10 ms of work, so a batch holds its locks briefly, yet few enough
 * statements that on SQLite, where each waits for the one write lock, pruning keeps up with a busy
 * queue (batches of 500 fell behind a drain of 13,000 jobs/s).
 */
export const DEFAULT_PRUNE_BATCH_SIZE = 2000;

/**
 * Longest the pruner runs batches back to back before it lets the event loop run, in ms. One
 * batch per turn would be too slow on SQLite, whose statements block the thread: a busy engine's
 * turn takes tens of ms, so the pruner would fall behind a queue running thousands of jobs/s.
 */
const SLICE_MS = 20;

/** Options of a {@link Pruner}. */
export interface PrunerOptions {
  readonly store: Store;
  readonly logger: Logger;
  readonly emit: EmitEngineEvent;
  readonly policy: RetentionPolicy;
  /** Time between runs, in ms; 0 never runs on a timer (`runOnce` still works). */
  readonly pruneIntervalMs: number;
  /** Rows per delete. @defaultValue {@link DEFAULT_PRUNE_BATCH_SIZE} */
  readonly batchSize?: number;
  /**
   * Rows deleted (over one or more runs) after which the run ends with `Store.reclaimSpace`;
   * 0 never calls it. @defaultValue {@link DEFAULT_RECLAIM_AFTER_ROWS}
   */
  readonly reclaimAfterRows?: number;
}

/**
 * Deleted rows after which a run reclaims their space: about a few MB of rows, so the table's
 * growth between two reclaims stays small, while a quiet queue never pays for a vacuum.
 */
export const DEFAULT_RECLAIM_AFTER_ROWS = 10_000;

/**
 * Retention: deletes finished jobs older than the {@link RetentionPolicy} allows, per status and
 * kind, oldest first, in batches of `batchSize` rows. Each batch is its own short transaction and
 * the event loop runs at least every 20 ms of batches, so a large backlog never holds locks for
 * long or starves the claimer. Every instance may run one: on PostgreSQL two pruners skip each other's rows.
 * One statement lists the statuses and kinds that have finished jobs, so a run with nothing to
 * delete is one transaction.
 */
export class Pruner {
  readonly #options: PrunerOptions;
  readonly #timer: PeriodicTimer;
  #stopped = false;
  /** Rows deleted since space was last reclaimed. */
  #unreclaimed = 0;

  constructor(options: PrunerOptions) {
    this.#options = options;
    this.#timer = new PeriodicTimer(
      () => this.runOnce(),
      options.pruneIntervalMs,
      (error) => options.logger.error({ err: error }, 'pruning finished jobs failed'),
    );
  }

  readonly name = 'pruner';

  start(): void {
    this.#stopped = false;
    if (this.#options.pruneIntervalMs > 0) this.#timer.start();
  }

  /** Stops the timer; a run in progress stops after its current batch. */
  stop(): void {
    this.#stopped = true;
    this.#timer.stop();
  }

  /** One run, now: deletes every job past its age, batch after batch. */
  async runOnce(): Promise<PruneResult> {
    const { store, policy } = this.#options;
    const limit = this.#options.batchSize ?? DEFAULT_PRUNE_BATCH_SIZE;
    const byStatus: Record<TerminalStatus, number> = { SUCCEEDED: 0, FAILED: 0, CANCELLED: 0 };
    let batches = 0;
    let sliceStart = performance.now();
    for (const { status, kind } of await store.finishedKinds()) {
      const olderThanMs = retentionAgeMs(policy, status, kind);
      if (olderThanMs === null) continue;
      for (;;) {
        if (this.#stopped && batches > 0) return this.#finish(byStatus, batches, false);
        const deleted = await store.pruneFinished({ status, kind, olderThanMs, limit });
        batches += 1;
        byStatus[status] += deleted;
        if (deleted < limit) break;
        if (performance.now() - sliceStart >= SLICE_MS) {
          await yieldToEventLoop();
          sliceStart = performance.now();
        }
      }
    }
    return this.#finish(byStatus, batches, await this.#reclaim(byStatus));
  }

  /** Reclaims the space of deleted rows once enough have been deleted; @returns whether it did. */
  async #reclaim(byStatus: Record<TerminalStatus, number>): Promise<boolean> {
    this.#unreclaimed += byStatus.SUCCEEDED + byStatus.FAILED + byStatus.CANCELLED;
    const threshold = this.#options.reclaimAfterRows ?? DEFAULT_RECLAIM_AFTER_ROWS;
    if (threshold === 0 || this.#unreclaimed < threshold) return false;
    await this.#options.store.reclaimSpace();
    this.#unreclaimed = 0;
    return true;
  }

  #finish(byStatus: Record<TerminalStatus, number>, batches: number, reclaimed: boolean): PruneResult {
    const deleted = byStatus.SUCCEEDED + byStatus.FAILED + byStatus.CANCELLED;
    const result = { deleted, byStatus, batches, reclaimed };
    this.#options.emit('prune:done', result);
    if (deleted > 0) this.#options.logger.info({ ...byStatus, batches }, `pruned ${deleted} finished jobs`);
    return result;
  }
}

import type { CompleteInput, FailInput, JobLease, Store } from '@nudge/store';
import type { Logger } from '@nudge/core';
import type { EngineEvents } from './engine-events.js';

/** The outcome of one attempt, to be written to the store. */
export type Outcome =
  | { readonly type: 'complete'; readonly input: CompleteInput }
  | { readonly type: 'fail'; readonly input: FailInput }
  | { readonly type: 'release'; readonly input: JobLease };

type Emit = <K extends keyof EngineEvents>(name: K, value: EngineEvents[K]) => void;

const RETRY_AFTER_ERROR_MS = 500;

/**
 * Writes attempt outcomes in batches: outcomes that arrive while a write is in flight go
 * together in the next one (one transaction per kind of outcome). A failed write keeps its
 * outcomes and retries; leases keep being renewed meanwhile, and if one is lost anyway the
 * conditioned write simply records nothing.
 */
export class OutcomeWriter {
  readonly #store: Store;
  readonly #logger: Logger;
  readonly #emit: Emit;
  readonly #onWritten: (leases: readonly JobLease[]) => void;
  #queue: Outcome[] = [];
  #flushing: Promise<void> | undefined;

  constructor(store: Store, logger: Logger, emit: Emit, onWritten: (leases: readonly JobLease[]) => void) {
    this.#store = store;
    this.#logger = logger;
    this.#emit = emit;
    this.#onWritten = onWritten;
  }

  /** Outcomes not yet written. */
  get pending(): number {
    return this.#queue.length;
  }

  /** Queues an outcome and starts a write unless one is running. */
  push(outcome: Outcome): void {
    this.#queue.push(outcome);
    this.#flushing ??= this.#drain().finally(() => {
      this.#flushing = undefined;
    });
  }

  /** Resolves once every queued outcome is written, or after one failed attempt when `giveUp`. */
  async flush(giveUp = false): Promise<void> {
    while (this.#queue.length > 0 || this.#flushing) {
      if (this.#flushing) await this.#flushing;
      else if (!(await this.#writeBatch()) && giveUp) return;
    }
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      if (!(await this.#writeBatch())) {
        await new Promise((resolve) => setTimeout(resolve, RETRY_AFTER_ERROR_MS));
      }
    }
  }

  async #writeBatch(): Promise<boolean> {
    const batch = this.#queue;
    this.#queue = [];
    const completes = batch.flatMap((o) => (o.type === 'complete' ? [o] : []));
    const fails = batch.flatMap((o) => (o.type === 'fail' ? [o] : []));
    const releases = batch.flatMap((o) => (o.type === 'release' ? [o] : []));
    const steps: Array<[readonly Outcome[], () => Promise<void>]> = [
      [completes, () => this.#writeCompletes(completes.map((o) => o.input))],
      [fails, () => this.#writeFails(fails.map((o) => o.input))],
      [releases, () => this.#writeReleases(releases.map((o) => o.input))],
    ];
    for (const [index, [outcomes, write]] of steps.entries()) {
      if (outcomes.length === 0) continue;
      try {
        await write();
      } catch (error) {
        // Keep what was not written; each kind of outcome is one transaction, all or nothing.
        this.#queue = [...steps.slice(index).flatMap(([rest]) => rest), ...this.#queue];
        this.#logger.error(
          { err: error, outcomes: outcomes.length },
          'writing job outcomes failed; will retry',
        );
        this.#emit('outcome:error', { error });
        return false;
      }
      this.#onWritten(outcomes.map((o) => ({ id: o.input.id, version: o.input.version })));
    }
    return true;
  }

  async #writeCompletes(inputs: readonly CompleteInput[]): Promise<void> {
    const written = await this.#store.complete(inputs);
    for (const lease of written) this.#emit('job:succeeded', lease);
    this.#reportLost('complete', inputs, written);
  }

  async #writeFails(inputs: readonly FailInput[]): Promise<void> {
    const written = await this.#store.fail(inputs);
    const byId = new Map(inputs.map((input) => [input.id, input]));
    for (const outcome of written) {
      const input = byId.get(outcome.id);
      this.#emit('job:failed', {
        ...outcome,
        error: input?.error ?? '',
        retryDelayMs: input?.retryDelayMs ?? 0,
      });
    }
    this.#reportLost('fail', inputs, written);
  }

  async #writeReleases(inputs: readonly JobLease[]): Promise<void> {
    const written = await this.#store.release(inputs);
    for (const lease of written) this.#emit('job:released', lease);
    this.#reportLost('release', inputs, written);
  }

  #reportLost(type: Outcome['type'], sent: readonly JobLease[], written: readonly JobLease[]): void {
    const recorded = new Set(written.map((lease) => lease.id));
    for (const { id, version } of sent) {
      if (recorded.has(id)) continue;
      this.#logger.warn({ jobId: id, version, outcome: type }, 'lease lost: outcome discarded');
      this.#emit('job:lease-lost', { id, version });
    }
  }
}

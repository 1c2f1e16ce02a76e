import type { Logger } from '@nudge/core';
import type { JobLease, ProgressInput, Store } from '@nudge/store';
import type { EmitEngineEvent } from './engine-events.js';

/** Options of a {@link ProgressWriter}. */
export interface ProgressWriterOptions {
  readonly store: Store;
  readonly logger: Logger;
  readonly emit: EmitEngineEvent;
  /** Shortest time between two writes, in ms (so at most one write per job per interval). */
  readonly intervalMs: number;
}

interface Latest {
  readonly version: number;
  json: string;
  /** Not written yet. */
  dirty: boolean;
}

/**
 * Writes `ctx.progress` values through a throttle: the latest value of every running attempt
 * that reported one since the last write goes in one `Store.setProgress` statement, at most once
 * per `intervalMs`. It keeps each attempt's latest value until the attempt ends, so that the
 * outcome can carry it ({@link finish}): a value reported just before the handler settled is
 * never lost to a progress write that arrives after the completion (and is fenced out). A failed
 * write is logged and its values are tried again at the next interval.
 */
export class ProgressWriter {
  readonly #options: ProgressWriterOptions;
  readonly #latest = new Map<number, Latest>();
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> | undefined;
  #writtenAt = Number.NEGATIVE_INFINITY;
  #stopped = false;

  constructor(options: ProgressWriterOptions) {
    this.#options = options;
  }

  /** Records the latest progress of a running attempt; it is written within one interval. */
  report(lease: JobLease, json: string): void {
    const latest = this.#latest.get(lease.id);
    if (latest && latest.version === lease.version) {
      latest.json = json;
      latest.dirty = true;
    } else {
      this.#latest.set(lease.id, { version: lease.version, json, dirty: true });
    }
    this.#schedule();
  }

  /**
   * The attempt ended: forgets it, and returns its latest progress (written or not) for the
   * outcome to carry, or `undefined` when it reported none.
   */
  finish(id: number, version: number): string | undefined {
    if (this.#latest.size === 0) return undefined;
    const latest = this.#latest.get(id);
    if (!latest || latest.version !== version) return undefined;
    this.#latest.delete(id);
    return latest.json;
  }

  /** Writes what is pending now, whatever the interval; resolves once written (or failed). */
  async flush(): Promise<void> {
    while (this.#writing) await this.#writing;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#write();
  }

  /** Stops the timer after a last {@link flush}; reports after this are kept but not written. */
  async stop(): Promise<void> {
    await this.flush();
    this.#stopped = true;
  }

  #schedule(): void {
    if (this.#timer || this.#writing || this.#stopped) return;
    const wait = Math.max(0, this.#writtenAt + this.#options.intervalMs - performance.now());
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#write();
    }, wait);
  }

  #write(): Promise<void> {
    const items: ProgressInput[] = [];
    for (const [id, latest] of this.#latest) {
      if (!latest.dirty) continue;
      latest.dirty = false;
      items.push({ id, version: latest.version, progressJson: latest.json });
    }
    if (items.length === 0) return Promise.resolve();
    this.#writtenAt = performance.now();
    const writing = this.#options.store
      .setProgress(items)
      .then(
        (written) => this.#options.emit('progress:written', { sent: items.length, written: written.length }),
        (error: unknown) => {
          // Values not replaced meanwhile are tried again.
          for (const item of items) {
            const latest = this.#latest.get(item.id);
            if (latest && latest.version === item.version && latest.json === item.progressJson)
              latest.dirty = true;
          }
          this.#options.logger.warn(
            { err: error, jobs: items.length },
            'writing job progress failed; retrying',
          );
        },
      )
      .finally(() => {
        this.#writing = undefined;
        for (const latest of this.#latest.values()) {
          if (latest.dirty) {
            this.#schedule();
            break;
          }
        }
      });
    this.#writing = writing;
    return writing;
  }
}

import type { Logger } from '@nudge/core';
import type { JobLease, JobLogAppend, JobLogCaps, Store } from '@nudge/store';
import type { EmitEngineEvent } from './engine-events.js';
import type { JobLogFields } from './job-log-fields.js';
import type { LogBatch } from './threads/thread-messages.js';

/** Options of a {@link LogWriter}. */
export interface LogWriterOptions {
  readonly store: Store;
  readonly logger: Logger;
  readonly emit: EmitEngineEvent;
  /** Shortest time between two timed writes, in ms (a flush before an outcome does not wait for it). */
  readonly intervalMs: number;
  readonly caps: JobLogCaps;
  /** Longest wait of {@link flushFor}, in ms: the bound on how long an outcome waits for its lines. */
  readonly flushWaitMs: number;
  /**
   * Most lines held in memory, waiting to be written; lines reported over it are counted as
   * dropped for their job instead. @defaultValue 100000
   */
  readonly maxPendingLines?: number;
  /** Most attempts in one store call. @defaultValue 200 */
  readonly maxBatch?: number;
}

/** The key of an attempt in the writer's maps. */
const keyOf = (id: number, version: number): string => `${id}:${version}`;

interface Pending {
  readonly id: number;
  readonly version: number;
  readonly attempt: number;
  lines: JobLogAppend['lines'][number][];
  dropped: number;
}

/**
 * Writes the `ctx.log` lines of running attempts in batches, off the outcome path: lines of every
 * attempt go in one `Store.appendJobLogs` call at most once per `intervalMs`, and each line goes
 * to the service's log at once (with the job's id, kind, queue, attempt and version, its fields
 * under `fields`). Before an outcome is written, {@link flushFor} writes the lines of its attempt
 * at once, waiting at most `flushWaitMs`: a client that sees the job finished reads every kept
 * line, and a slow log write delays no outcome past that bound (its lines follow the outcome,
 * which the store still accepts: an outcome does not move the version). A failed write is logged
 * and its lines are tried again at the next interval; lines in memory are bounded by
 * `maxPendingLines` (over it, lines are counted as dropped).
 */
export class LogWriter {
  readonly #options: Required<LogWriterOptions>;
  readonly #pending = new Map<string, Pending>();
  /** Attempts whose lines are in the write in flight. */
  #inFlight = new Set<string>();
  #pendingLines = 0;
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> | undefined;
  #writtenAt = Number.NEGATIVE_INFINITY;
  #stopped = false;

  constructor(options: LogWriterOptions) {
    this.#options = { maxPendingLines: 100_000, maxBatch: 200, ...options };
  }

  /** Lines held in memory, not yet written. */
  get pendingLines(): number {
    return this.#pendingLines;
  }

  /**
   * Takes lines from threads: each goes to the service's log (with `fieldsOf` the attempt's log
   * fields, when it is still known) and is queued for the store.
   */
  report(
    batches: readonly LogBatch[],
    fieldsOf: (id: number, version: number) => JobLogFields | undefined,
  ): void {
    const { logger, maxPendingLines } = this.#options;
    for (const [id, version, attempt, lines, dropped] of batches) {
      const known = fieldsOf(id, version) ?? { jobId: id, attempt, version };
      const key = keyOf(id, version);
      let pending = this.#pending.get(key);
      if (!pending) {
        pending = { id, version, attempt, lines: [], dropped: 0 };
        this.#pending.set(key, pending);
      }
      pending.dropped += dropped;
      for (const [level, message, fieldsJson] of lines) {
        logger[level](
          { ...known, fields: fieldsJson === null ? undefined : (JSON.parse(fieldsJson) as unknown) },
          message,
        );
        if (this.#pendingLines >= maxPendingLines) {
          pending.dropped += 1;
          continue;
        }
        pending.lines.push({ level, message, fieldsJson });
        this.#pendingLines += 1;
      }
    }
    this.#schedule();
  }

  /**
   * Writes the pending lines now if any of `leases` has some (pending or in flight), and resolves
   * once they are written or `flushWaitMs` after `since` (a `performance.now()` time: when the
   * first of the outcomes waiting was ready), whichever comes first. Never rejects.
   */
  async flushFor(leases: readonly JobLease[], since = performance.now()): Promise<void> {
    // Most outcome batches come with no line anywhere: no key set to build for them.
    if (this.#pending.size === 0 && this.#inFlight.size === 0) return;
    const waitMs = this.#options.flushWaitMs - (performance.now() - since);
    if (waitMs <= 0) return;
    const keys = new Set(leases.map(({ id, version }) => keyOf(id, version)));
    const waiting = (): boolean => [...keys].some((key) => this.#pending.has(key) || this.#inFlight.has(key));
    if (!waiting()) return;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, waitMs);
    });
    await Promise.race([this.#flushKeys(keys, waiting), bound]);
    clearTimeout(timer);
  }

  /** Writes until no line of `keys` is pending or in flight, those first in each write. */
  async #flushKeys(keys: ReadonlySet<string>, waiting: () => boolean): Promise<void> {
    while (waiting()) if (!(await this.#write(keys))) return;
  }

  /** Writes what is pending now, whatever the interval; resolves once written (or failed). */
  async flush(): Promise<void> {
    while (this.#writing) await this.#writing;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    // A failed write put its lines back: they are left to the next interval.
    while (this.#pending.size > 0 && (await this.#write()));
  }

  /** A last {@link flush}, then no timer; lines reported after this are logged but not stored. */
  async stop(): Promise<void> {
    await this.flush();
    this.#stopped = true;
  }

  #schedule(): void {
    if (this.#timer || this.#writing || this.#stopped || this.#pending.size === 0) return;
    const wait = Math.max(0, this.#writtenAt + this.#options.intervalMs - performance.now());
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#write();
    }, wait);
  }

  /**
   * Writes the pending lines (one write at a time, so an attempt's lines are stored in order).
   * @param first - attempts whose lines go in this write before any other's
   * @returns false when the write failed
   */
  #write(first: ReadonlySet<string> = new Set()): Promise<boolean> {
    if (this.#writing) return this.#writing.then(() => this.#write(first));
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const appends: JobLogAppend[] = [];
    const take = (key: string): void => {
      const pending = this.#pending.get(key);
      if (!pending || appends.length >= this.#options.maxBatch) return;
      this.#pending.delete(key);
      this.#inFlight.add(key);
      appends.push(pending);
    };
    for (const key of first) take(key);
    for (const key of [...this.#pending.keys()]) take(key);
    if (appends.length === 0) return Promise.resolve(true);
    const lines = appends.reduce((sum, a) => sum + a.lines.length, 0);
    this.#pendingLines -= lines;
    this.#writtenAt = performance.now();
    const writing = this.#options.store
      .appendJobLogs(appends, this.#options.caps)
      .then(
        (written) => {
          const stored = written.reduce((sum, w) => sum + w.stored, 0);
          const dropped = written.reduce((sum, w) => sum + w.dropped, 0);
          this.#options.emit('logs:written', { attempts: appends.length, lines, stored, dropped });
          return true;
        },
        (error: unknown) => {
          this.#requeue(appends);
          this.#options.logger.warn(
            { err: error, attempts: appends.length, lines },
            'writing job log lines failed; retrying',
          );
          return false;
        },
      )
      .finally(() => {
        this.#writing = undefined;
        this.#inFlight = new Set();
        this.#schedule();
      });
    this.#writing = writing.then(() => undefined);
    return writing;
  }

  /** Puts the appends of a failed write back, ahead of lines reported since. */
  #requeue(appends: readonly JobLogAppend[]): void {
    for (const append of appends) {
      const key = keyOf(append.id, append.version);
      const later = this.#pending.get(key);
      const back: Pending = {
        id: append.id,
        version: append.version,
        attempt: append.attempt,
        lines: [...append.lines, ...(later?.lines ?? [])],
        dropped: (append.dropped ?? 0) + (later?.dropped ?? 0),
      };
      this.#pending.delete(key);
      this.#pending.set(key, back);
      this.#pendingLines += append.lines.length;
    }
  }
}

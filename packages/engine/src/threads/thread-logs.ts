import { fitJobLogLine, jobLogFieldsJson, jobLogMessageText, type JobLogLevel } from '@nudge/core';
import type { JobLog } from '../handlers/handler.js';
import type { LogBatch, LogLineTuple } from './thread-messages.js';

/** Options of a {@link ThreadLogs}. */
export interface ThreadLogsOptions {
  /** Shortest time between two log messages of the thread, in ms. */
  readonly intervalMs: number;
  /** Most lines one attempt sends; later ones are counted as dropped. */
  readonly linesPerAttempt: number;
  /** Sends the batches of every attempt with unsent lines, in one message. */
  readonly send: (batches: readonly LogBatch[]) => void;
}

/** One attempt's log on its thread. */
interface AttemptLog {
  readonly id: number;
  readonly version: number;
  readonly attempt: number;
  unsent: LogLineTuple[];
  /** Lines over the attempt's cap not yet reported. */
  dropped: number;
  /** Lines taken so far, sent or not. */
  taken: number;
  ended: boolean;
}

/**
 * The `ctx.log` of the attempts on one thread: each line is fitted (`fitJobLogLine`) where it is
 * written, kept until the next message (at most one per `intervalMs` for all attempts of the
 * thread), and an attempt's unsent lines are handed over when it settles ({@link take}), to
 * travel before its result. An attempt sends at most `linesPerAttempt` lines (its job could store
 * no more); later ones are only counted, so a handler logging in a tight loop costs its thread a
 * counter, not memory.
 */
export class ThreadLogs {
  readonly #options: ThreadLogsOptions;
  readonly #attempts = new Map<number, AttemptLog>();
  /** Attempts with unsent lines or drops. */
  readonly #dirty = new Set<AttemptLog>();
  #timer: NodeJS.Timeout | undefined;
  #sentAt = Number.NEGATIVE_INFINITY;

  constructor(options: ThreadLogsOptions) {
    this.#options = options;
  }

  /** The `ctx.log` of an attempt starting now. */
  logOf(id: number, version: number, attempt: number): JobLog {
    const log: AttemptLog = { id, version, attempt, unsent: [], dropped: 0, taken: 0, ended: false };
    this.#attempts.set(id, log);
    const write = (level: JobLogLevel) => (message: unknown, fields?: unknown) =>
      this.#write(log, level, message, fields);
    return Object.freeze({
      debug: write('debug'),
      info: write('info'),
      warn: write('warn'),
      error: write('error'),
    });
  }

  /** The attempt settled: its unsent lines (and drops), to send before its result; later calls are ignored. */
  take(id: number, version: number): LogBatch | undefined {
    const log = this.#attempts.get(id);
    if (!log || log.version !== version) return undefined;
    this.#attempts.delete(id);
    this.#dirty.delete(log);
    log.ended = true;
    return log.unsent.length === 0 && log.dropped === 0 ? undefined : batchOf(log);
  }

  #write(log: AttemptLog, level: JobLogLevel, message: unknown, fields: unknown): void {
    if (log.ended) return;
    if (log.taken >= this.#options.linesPerAttempt) {
      log.dropped += 1;
    } else {
      log.taken += 1;
      const line = fitJobLogLine(level, jobLogMessageText(message), jobLogFieldsJson(fields));
      log.unsent.push([line.level, line.message, line.fieldsJson]);
    }
    this.#dirty.add(log);
    if (this.#timer) return;
    const wait = Math.max(0, this.#sentAt + this.#options.intervalMs - performance.now());
    this.#timer = setTimeout(() => this.#sendAll(), wait);
  }

  #sendAll(): void {
    this.#timer = undefined;
    this.#sentAt = performance.now();
    const batches: LogBatch[] = [];
    for (const log of this.#dirty) batches.push(batchOf(log));
    this.#dirty.clear();
    if (batches.length > 0) this.#options.send(batches);
  }
}

/** The unsent part of `log`, which is then empty. */
function batchOf(log: AttemptLog): LogBatch {
  const batch: LogBatch = [log.id, log.version, log.attempt, log.unsent, log.dropped];
  log.unsent = [];
  log.dropped = 0;
  return batch;
}

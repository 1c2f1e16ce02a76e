import { Worker } from 'node:worker_threads';
import type { ExecutionClass } from '@nudge/core';
import type { ClaimedJob } from '@nudge/store';
import type { KindInfo } from '../handlers/handler.js';
import {
  encodeJobs,
  type AttemptResult,
  type FromThread,
  type LeaseTuple,
  type LogBatch,
  type ProgressTuple,
  type StepMessage,
  type StepWrittenMessage,
  type ThreadData,
  type ThreadTracing,
  type ToThread,
  type LeaseCheckMessage,
  type LeaseFresh,
} from './thread-messages.js';

const ENTRY = new URL('./thread-entry.js', import.meta.url);

/** What a {@link WorkerThread} reports to its owner. */
export interface ThreadListener {
  /** Attempts ended (a batch). */
  onResults(thread: WorkerThread, results: readonly AttemptResult[]): void;
  /** Running attempts reported progress (the latest value of each, batched). */
  onProgress(thread: WorkerThread, progress: readonly ProgressTuple[]): void;
  /** Attempts wrote `ctx.log` lines (an attempt's last ones before its result). */
  onLogs(thread: WorkerThread, batches: readonly LogBatch[]): void;
  /** An attempt is about to end the thread (it called `process.exit`). */
  onCulprit(thread: WorkerThread, id: number, version: number, error: string): void;
  /** An attempt that had ended already threw outside its promise (from a timer, say). */
  onStrayError(thread: WorkerThread, id: number, version: number, error: string): void;
  /** A running attempt asks for a step row to be written; answer with {@link WorkerThread.stepWritten}. */
  onStepWrite(thread: WorkerThread, message: StepMessage | LeaseCheckMessage): void;
  /**
   * The thread is gone: it crashed, exited, ran out of memory, or was terminated. `cause` is
   * the error the thread died of, or an `Error` naming its exit code.
   */
  onExit(thread: WorkerThread, cause: unknown): void;
}

/** Options of a {@link WorkerThread}. */
export interface WorkerThreadOptions {
  /** `file:` URL of the handler module. */
  readonly handlersUrl: string;
  readonly role: ExecutionClass | 'describe';
  /** V8 old-generation heap limit, in MB; a thread over it dies, not the service. */
  readonly maxOldGenerationSizeMb: number;
  /** How much lower than the service the thread runs (`nice` increment, 0 to 19). @defaultValue 0 */
  readonly niceIncrement?: number;
  /** Shortest time between two progress messages of the thread, in ms. @defaultValue 1000 */
  readonly progressIntervalMs?: number;
  /** Most `ctx.log` lines one attempt sends. @defaultValue 1000 */
  readonly logLinesPerJob?: number;
  /** How the thread traces attempts; absent when the engine does not trace. */
  readonly tracing?: ThreadTracing;
}

/**
 * One worker thread and its message channel (the thread's own port: no channel per job). Jobs go
 * in batches ({@link run}), results come back in batches; {@link terminate} ends the thread and
 * everything on it.
 */
export class WorkerThread {
  readonly #worker: Worker;
  readonly #ready: Promise<readonly KindInfo[]>;
  #moduleSchedules: unknown;
  #cause: unknown;
  #exited = false;
  readonly #traced: boolean;

  constructor(options: WorkerThreadOptions, listener: ThreadListener) {
    const workerData: ThreadData = {
      handlersUrl: options.handlersUrl,
      role: options.role,
      niceIncrement: options.niceIncrement ?? 0,
      progressIntervalMs: options.progressIntervalMs ?? 1000,
      logLinesPerJob: options.logLinesPerJob ?? 1000,
      ...(options.tracing ? { tracing: options.tracing } : {}),
    };
    this.#traced = options.tracing !== undefined;
    this.#worker = new Worker(ENTRY, {
      workerData,
      resourceLimits: { maxOldGenerationSizeMb: options.maxOldGenerationSizeMb },
    });
    let markReady: (kinds: readonly KindInfo[]) => void = () => undefined;
    let markFailed: (error: Error) => void = () => undefined;
    this.#ready = new Promise((resolve, reject) => {
      markReady = resolve;
      markFailed = reject;
    });
    // A thread that dies before it is ready rejects `ready`; nobody may be waiting yet.
    this.#ready.catch(() => undefined);
    this.#worker.on('message', (message: FromThread) => {
      switch (message.type) {
        case 'results':
          listener.onResults(this, JSON.parse(message.results) as AttemptResult[]);
          return;
        case 'progress':
          listener.onProgress(this, JSON.parse(message.progress) as ProgressTuple[]);
          return;
        case 'logs':
          listener.onLogs(this, JSON.parse(message.logs) as LogBatch[]);
          return;
        case 'ready':
          this.#moduleSchedules = message.schedules;
          markReady(message.kinds);
          return;
        case 'load-error':
          this.#cause = new Error(message.message);
          markFailed(new Error(message.message));
          return;
        case 'culprit':
          listener.onCulprit(this, message.id, message.version, message.error);
          return;
        case 'stray-error':
          listener.onStrayError(this, message.id, message.version, message.error);
          return;
        case 'step':
        case 'lease-check':
          listener.onStepWrite(this, message);
          return;
      }
    });
    this.#worker.on('error', (error) => {
      this.#cause ??= error;
    });
    this.#worker.on('exit', (code) => {
      this.#exited = true;
      const cause = this.#cause ?? new Error(`the thread exited with code ${code}`);
      markFailed(cause instanceof Error ? cause : new Error(`the thread exited with code ${code}`));
      listener.onExit(this, cause);
    });
  }

  /** Resolves with the module's kinds once the thread has loaded it; rejects if it could not. */
  ready(): Promise<readonly KindInfo[]> {
    return this.#ready;
  }

  /** The module's `schedules` export as data, once a describing thread is ready. */
  get moduleSchedules(): unknown {
    return this.#moduleSchedules;
  }

  /** Whether the thread has ended. */
  get exited(): boolean {
    return this.#exited;
  }

  /** Starts attempts on this thread (one message for all of them). */
  run(jobs: readonly ClaimedJob[], freshUntil: LeaseFresh): void {
    this.#post({ type: 'run', jobs: encodeJobs(jobs, this.#traced), freshUntil });
  }

  /** Fires `ctx.signal` of these attempts (`[id, version]` each). */
  abort(leases: readonly LeaseTuple[], reason: string): void {
    this.#post({ type: 'abort', leases, reason });
  }

  /** Answers a step write of one of this thread's attempts. */
  stepWritten(answer: StepWrittenMessage): void {
    this.#post(answer);
  }

  /** Ends the thread at once; its attempts never settle, and `onExit` follows. */
  terminate(): Promise<void> {
    if (this.#exited) return Promise.resolve();
    return this.#worker.terminate().then(() => undefined);
  }

  #post(message: ToThread): void {
    if (!this.#exited) this.#worker.postMessage(message);
  }
}

import type { ExecutionClass, Logger } from '@nudge/core';
import type { ClaimedJob, JobLease } from '@nudge/store';
import type { ExecutionPool, ExecutionPoolListener, LostAttempt } from './execution-pool.js';
import type { AttemptResult, LeaseFresh, ProgressTuple, ThreadTracing } from './thread-messages.js';
import { WorkerThread, type ThreadListener } from './worker-thread.js';

/** Options of a {@link ThreadPool}. */
export interface ThreadPoolOptions {
  readonly execution: ExecutionClass;
  /** `file:` URL of the handler module. */
  readonly handlersUrl: string;
  /** Threads kept running. */
  readonly threads: number;
  /** Attempts one thread runs at once: 1 for `cpu`, the async concurrency for `async`. */
  readonly perThread: number;
  /** Heap limit of each thread, in MB. */
  readonly maxOldGenerationSizeMb: number;
  /** How much lower than the service its threads run (`nice` increment, 0 to 19). */
  readonly niceIncrement: number;
  /** Shortest time between two progress messages of one thread, in ms. */
  readonly progressIntervalMs: number;
  /** Most `ctx.log` lines one attempt sends. */
  readonly logLinesPerJob: number;
  readonly logger: Logger;
  /** How threads trace attempts; absent when the engine does not trace. */
  readonly tracing?: ThreadTracing;
}

interface Slot {
  readonly thread: WorkerThread;
  /** Attempts on the thread, by id, with their version. */
  readonly attempts: Map<number, number>;
  ready: boolean;
  terminated: boolean;
  culprits: Map<number, string>;
}

/**
 * The batched threads of the `async` class and their slots: `threads × perThread` attempts at
 * once. Jobs go to the least loaded ready thread, one message per thread per batch, and results
 * come back in batches. A thread that ends is replaced; the attempts it held are reported lost.
 */
export class ThreadPool implements ExecutionPool {
  readonly execution: ExecutionClass;
  readonly #options: ThreadPoolOptions;
  readonly #listener: ExecutionPoolListener;
  readonly #slots = new Map<WorkerThread, Slot>();
  readonly #threadOf = new Map<number, Slot>();
  #stopping = false;
  /** Set once the first threads are ready: threads spawned from then on replace ended ones. */
  #started = false;

  private constructor(options: ThreadPoolOptions, listener: ExecutionPoolListener) {
    this.execution = options.execution;
    this.#options = options;
    this.#listener = listener;
  }

  /**
   * Starts every thread and waits until each has loaded the handler module.
   * @throws Error when a thread cannot load the module
   */
  static async start(options: ThreadPoolOptions, listener: ExecutionPoolListener): Promise<ThreadPool> {
    const pool = new ThreadPool(options, listener);
    const slots = Array.from({ length: options.threads }, () => pool.#spawn());
    try {
      await Promise.all(slots.map((slot) => slot.thread.ready()));
    } catch (error) {
      await pool.destroy();
      throw error;
    }
    pool.#started = true;
    return pool;
  }

  /** Attempts this pool can run at once. */
  get capacity(): number {
    return this.#options.threads * this.#options.perThread;
  }

  /** Attempts running. */
  get busy(): number {
    return this.#threadOf.size;
  }

  /** Attempts that can start now: free places on ready threads. */
  get free(): number {
    let free = 0;
    for (const slot of this.#slots.values()) {
      if (slot.ready && !slot.terminated) free += this.#options.perThread - slot.attempts.size;
    }
    return free;
  }

  dispatch(jobs: readonly ClaimedJob[], freshUntil: LeaseFresh = Number.POSITIVE_INFINITY): ClaimedJob[] {
    const batches = new Map<Slot, ClaimedJob[]>();
    const unplaced: ClaimedJob[] = [];
    const open = [...this.#slots.values()].filter((s) => s.ready && !s.terminated);
    for (const job of jobs) {
      let best: Slot | undefined;
      for (const slot of open) {
        const load = slot.attempts.size;
        if (load < this.#options.perThread && (!best || load < best.attempts.size)) best = slot;
      }
      if (!best) {
        unplaced.push(job);
        continue;
      }
      best.attempts.set(job.id, job.version);
      this.#threadOf.set(job.id, best);
      let batch = batches.get(best);
      if (!batch) batches.set(best, (batch = []));
      batch.push(job);
    }
    for (const [slot, batch] of batches) slot.thread.run(batch, freshUntil);
    return unplaced;
  }

  abort(leases: readonly JobLease[], reason: string): void {
    const byThread = new Map<Slot, Array<[number, number]>>();
    for (const { id, version } of leases) {
      const slot = this.#threadOf.get(id);
      if (!slot) continue;
      const list = byThread.get(slot);
      if (list) list.push([id, version]);
      else byThread.set(slot, [[id, version]]);
    }
    for (const [slot, list] of byThread) slot.thread.abort(list, reason);
  }

  terminateThreadOf(id: number): void {
    const slot = this.#threadOf.get(id);
    if (!slot || slot.terminated) return;
    slot.terminated = true;
    void slot.thread.terminate();
  }

  /** Ends every thread running one of these attempts. */
  terminateThreadsOf(ids: Iterable<number>): void {
    for (const id of ids) this.terminateThreadOf(id);
  }

  async destroy(): Promise<void> {
    this.#stopping = true;
    await Promise.all(
      [...this.#slots.values()].map((slot) => {
        slot.terminated = true;
        return slot.thread.terminate();
      }),
    );
  }

  #spawn(): Slot {
    const listener: ThreadListener = {
      onResults: (thread, results) => this.#onResults(thread, results),
      onProgress: (thread, progress) => this.#onProgress(thread, progress),
      onLogs: (_thread, batches) => this.#listener.onLogs(batches),
      onCulprit: (thread, id, _version, error) => this.#slots.get(thread)?.culprits.set(id, error),
      onStrayError: (_thread, id, version, error) =>
        this.#options.logger.warn(
          { jobId: id, version, error },
          'a handler threw after its attempt had ended; the attempt keeps its outcome',
        ),
      onStepWrite: (thread, message) =>
        this.#listener.onStepWrite(message, (answer) => thread.stepWritten(answer)),
      onExit: (thread, cause) => this.#onExit(thread, cause),
    };
    const thread = new WorkerThread(
      {
        handlersUrl: this.#options.handlersUrl,
        role: this.execution,
        maxOldGenerationSizeMb: this.#options.maxOldGenerationSizeMb,
        niceIncrement: this.#options.niceIncrement,
        progressIntervalMs: this.#options.progressIntervalMs,
        logLinesPerJob: this.#options.logLinesPerJob,
        ...(this.#options.tracing ? { tracing: this.#options.tracing } : {}),
      },
      listener,
    );
    const slot: Slot = { thread, attempts: new Map(), ready: false, terminated: false, culprits: new Map() };
    const replacement = this.#started;
    this.#slots.set(thread, slot);
    thread.ready().then(
      () => {
        slot.ready = true;
        if (replacement && !this.#stopping) this.#listener.onThreadReady(this.execution);
      },
      () => undefined,
    );
    return slot;
  }

  #onResults(thread: WorkerThread, results: readonly AttemptResult[]): void {
    const slot = this.#slots.get(thread);
    if (!slot) return;
    const current: AttemptResult[] = [];
    for (const result of results) {
      const id = result[0];
      if (slot.attempts.get(id) !== result[1]) continue;
      slot.attempts.delete(id);
      this.#threadOf.delete(id);
      current.push(result);
    }
    if (current.length > 0) this.#listener.onResults(this.execution, current);
  }

  #onProgress(thread: WorkerThread, progress: readonly ProgressTuple[]): void {
    const slot = this.#slots.get(thread);
    if (!slot) return;
    const current = progress.filter(([id, version]) => slot.attempts.get(id) === version);
    if (current.length > 0) this.#listener.onProgress(current);
  }

  #onExit(thread: WorkerThread, cause: unknown): void {
    const slot = this.#slots.get(thread);
    if (!slot) return;
    this.#slots.delete(thread);
    const lost: LostAttempt[] = [];
    for (const [id, version] of slot.attempts) {
      this.#threadOf.delete(id);
      const culpritError = slot.culprits.get(id);
      lost.push(culpritError === undefined ? { id, version } : { id, version, culpritError });
    }
    if (!this.#stopping) {
      if (slot.ready) this.#spawn();
      else
        this.#options.logger.error(
          { err: cause },
          `a ${this.execution} thread failed to start; not replaced`,
        );
    }
    // An idle thread that dies (a handler's stray timer threw after its job ended) counts too;
    // threads ended by the pool's own shutdown do not.
    if (lost.length > 0 || !this.#stopping)
      this.#listener.onThreadLost(this.execution, lost, cause, slot.terminated, slot.culprits.size > 0);
  }
}

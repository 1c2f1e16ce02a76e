import { randomUUID } from 'node:crypto';
import { BroadcastChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { ExecutionClass, Logger } from '@nudge/core';
import type { ClaimedJob, JobLease } from '@nudge/store';
import type { ExecutionPool, ExecutionPoolListener, LostAttempt } from './execution-pool.js';
import type { PiscinaThreadData } from './piscina-thread-data.js';
import {
  jobTuple,
  type ThreadTracing,
  type AbortMessage,
  type FromThread,
  type JobTuple,
  type LogBatch,
  type PiscinaTaskResult,
  type ProgressTuple,
  type LeaseFresh,
  type PiscinaTask,
} from './thread-messages.js';

const ENTRY = new URL('./piscina-entry.js', import.meta.url).href;

/** Options of a {@link PiscinaPool}. */
export interface PiscinaPoolOptions {
  readonly execution: ExecutionClass;
  /** `file:` URL of the handler module. */
  readonly handlersUrl: string;
  /** Attempts run at once, one per worker: every Piscina pool of the class keeps this many workers. */
  readonly threads: number;
  /** Heap limit of each worker (V8 old generation), in MB. */
  readonly maxOldGenerationSizeMb: number;
  /**
   * Kinds that run in a Piscina pool of their own, with the V8 young-generation size of its
   * workers, in MB. They share the class's slots with every other kind.
   */
  readonly youngGenerationMbByKind: ReadonlyMap<string, number>;
  /** How much lower than the service its workers run (`nice` increment, 0 to 19). */
  readonly niceIncrement: number;
  /** Shortest time between two progress messages of one worker, in ms. */
  readonly progressIntervalMs: number;
  /** Most `ctx.log` lines one attempt sends. */
  readonly logLinesPerJob: number;
  readonly logger: Logger;
  /** How workers trace attempts; absent when the engine does not trace. */
  readonly tracing?: ThreadTracing;
}

/** One Piscina pool: the default one, or a kind's own. */
interface Group {
  readonly name: string;
  readonly piscina: Piscina<PiscinaTask | null, PiscinaTaskResult | null>;
  readonly aborts: BroadcastChannel;
}

/** A task on a worker. */
interface Task {
  readonly version: number;
  readonly group: Group;
  readonly controller: AbortController;
  terminated: boolean;
}

/**
 * The `cpu` class on Piscina: one task per job, one job per worker (`concurrentTasksPerWorker:
 * 1`), `threads` workers kept in each Piscina pool (the default one and one per kind that sets
 * its own young generation). Slots are counted here, not by Piscina's queue: a job is handed over
 * only when its pool has an idle ready worker and the class has a free slot, so Piscina's queue
 * stays empty ({@link queued} is 0) and a job never waits behind another. A task's abort signal
 * is what terminates its worker; Piscina replaces the worker and rejects the task.
 */
export class PiscinaPool implements ExecutionPool {
  readonly execution: ExecutionClass;
  readonly #options: PiscinaPoolOptions;
  readonly #listener: ExecutionPoolListener;
  readonly #groups: Group[] = [];
  readonly #groupOfKind = new Map<string, Group>();
  readonly #default: Group;
  readonly #tasks = new Map<number, Task>();
  /** Errors of attempts that ended their worker (`process.exit`), by `id:version`. */
  readonly #culprits = new Map<string, string>();
  /** Attempts on a worker that another attempt's code ended, by `id:version`. */
  readonly #bystanders = new Set<string>();
  /** Tasks that ended with their worker, counted to tell a worker that died idle. */
  #tasksLost = 0;
  /** Why the last idle worker died, when it said so (an error, or a stray `process.exit`). */
  #idleCause: { cause: unknown; culpritKnown: boolean } | undefined;
  #started = false;
  #stopping = false;

  private constructor(options: PiscinaPoolOptions, listener: ExecutionPoolListener) {
    this.execution = options.execution;
    this.#options = options;
    this.#listener = listener;
    this.#default = this.#createGroup('default', undefined);
    for (const [kind, youngMb] of options.youngGenerationMbByKind) {
      this.#groupOfKind.set(kind, this.#createGroup(kind, youngMb));
    }
  }

  /**
   * Starts every worker of every Piscina pool and waits until each has loaded the handler module
   * (one warm-up task per worker).
   * @throws Error when a worker cannot load the module (every pool is destroyed)
   */
  static async start(options: PiscinaPoolOptions, listener: ExecutionPoolListener): Promise<PiscinaPool> {
    const pool = new PiscinaPool(options, listener);
    try {
      await Promise.all(
        pool.#groups.flatMap((group) =>
          Array.from({ length: options.threads }, () => group.piscina.run(null)),
        ),
      );
    } catch (error) {
      await pool.destroy();
      throw error;
    }
    pool.#started = true;
    return pool;
  }

  /** Attempts this class runs at once. */
  get capacity(): number {
    return this.#options.threads;
  }

  /** Attempts running. */
  get busy(): number {
    return this.#tasks.size;
  }

  /** Attempts that can start now: a class slot free, and an idle ready worker in every pool. */
  get free(): number {
    let free = this.#options.threads - this.#tasks.size;
    for (const group of this.#groups) free = Math.min(free, group.piscina.idleThreads);
    return Math.max(0, free);
  }

  /** Tasks waiting in Piscina's queues: 0 at all times, or a job waited behind another. */
  get queued(): number {
    return this.#groups.reduce((sum, group) => sum + group.piscina.queueSize, 0);
  }

  dispatch(jobs: readonly ClaimedJob[], freshUntil: LeaseFresh = Number.POSITIVE_INFINITY): ClaimedJob[] {
    const unplaced: ClaimedJob[] = [];
    for (const job of jobs) {
      const group = this.#groupOfKind.get(job.kind) ?? this.#default;
      if (this.#tasks.size >= this.#options.threads || group.piscina.idleThreads === 0) {
        unplaced.push(job);
        continue;
      }
      this.#run(group, job, freshUntil);
      // Slots are exact, so Piscina never queues: a job waiting there would wait behind another.
      if (group.piscina.queueSize > 0) {
        this.#options.logger.error(
          { execution: this.execution, kind: job.kind, queued: group.piscina.queueSize },
          'a job waits in the Piscina queue: the slot count is wrong',
        );
      }
    }
    return unplaced;
  }

  abort(leases: readonly JobLease[], reason: string): void {
    const byGroup = new Map<Group, Array<[number, number]>>();
    for (const { id, version } of leases) {
      const task = this.#tasks.get(id);
      if (!task || task.version !== version) continue;
      const list = byGroup.get(task.group);
      if (list) list.push([id, version]);
      else byGroup.set(task.group, [[id, version]]);
    }
    for (const [group, list] of byGroup) {
      const message: AbortMessage = { type: 'abort', leases: list, reason };
      group.aborts.postMessage(message);
    }
  }

  terminateThreadOf(id: number): void {
    const task = this.#tasks.get(id);
    if (!task || task.terminated) return;
    task.terminated = true;
    task.controller.abort();
  }

  async destroy(): Promise<void> {
    this.#stopping = true;
    for (const task of this.#tasks.values()) task.terminated = true;
    await Promise.all(this.#groups.map((group) => group.piscina.destroy()));
    for (const group of this.#groups) group.aborts.close();
  }

  #createGroup(name: string, youngMb: number | undefined): Group {
    const abortChannel = `nudge-aborts-${randomUUID()}`;
    const workerData: PiscinaThreadData = {
      handlersUrl: this.#options.handlersUrl,
      niceIncrement: this.#options.niceIncrement,
      progressIntervalMs: this.#options.progressIntervalMs,
      logLinesPerJob: this.#options.logLinesPerJob,
      abortChannel,
      ...(this.#options.tracing ? { tracing: this.#options.tracing } : {}),
    };
    const piscina = new Piscina<PiscinaTask | null, PiscinaTaskResult | null>({
      filename: ENTRY,
      name: 'default',
      minThreads: this.#options.threads,
      maxThreads: this.#options.threads,
      concurrentTasksPerWorker: 1,
      // A worker waits for its next task with Atomics.waitAsync: a task posted wakes it at once,
      // and its event loop keeps turning meanwhile ('sync' would freeze it between tasks, so a
      // handler's stray timer, and an abort broadcast, would wait for the next job).
      atomics: 'async',
      resourceLimits: {
        maxOldGenerationSizeMb: this.#options.maxOldGenerationSizeMb,
        ...(youngMb === undefined ? {} : { maxYoungGenerationSizeMb: youngMb }),
      },
      workerData,
    });
    const aborts = new BroadcastChannel(abortChannel);
    aborts.unref();
    piscina.on('message', (message: FromThread) => this.#onMessage(message, aborts));
    piscina.on('workerCreate', () => {
      if (this.#started && !this.#stopping) this.#listener.onThreadReady(this.execution);
    });
    // A worker destroyed without a task of ours ending with it died idle (a handler's stray timer
    // called process.exit, or threw where no attempt owns it): Piscina replaces it, and it is
    // reported as a thread lost with no attempt. Piscina rejects the tasks of a worker it
    // destroys in the same turn, so the count has moved by the next one if any was on it.
    piscina.on('workerDestroy', () => {
      if (!this.#started || this.#stopping) return;
      const lostBefore = this.#tasksLost;
      setImmediate(() => {
        if (this.#stopping || this.#tasksLost !== lostBefore) return;
        const idle = this.#idleCause ?? { cause: new Error('a worker exited'), culpritKnown: false };
        this.#idleCause = undefined;
        this.#listener.onThreadLost(this.execution, [], idle.cause, false, idle.culpritKnown);
      });
    });
    // Emitted for an idle worker's error (its tasks' errors reject their tasks instead).
    piscina.on('error', (error: unknown) => {
      this.#idleCause = { cause: error, culpritKnown: false };
    });
    const group: Group = { name, piscina, aborts };
    this.#groups.push(group);
    return group;
  }

  #run(group: Group, job: ClaimedJob, freshUntil: LeaseFresh): void {
    const task: Task = { version: job.version, group, controller: new AbortController(), terminated: false };
    this.#tasks.set(job.id, task);
    const tuple: JobTuple = jobTuple(job, this.#options.tracing !== undefined);
    const piscinaTask: PiscinaTask = [tuple, freshUntil];
    group.piscina.run(piscinaTask, { signal: task.controller.signal }).then(
      (settled) => {
        if (!this.#end(job.id, task) || !settled) return;
        const [result, logs] = settled;
        if (logs) this.#listener.onLogs([logs]);
        this.#listener.onResults(this.execution, [result]);
      },
      (cause: unknown) => {
        this.#tasksLost += 1;
        if (!this.#end(job.id, task)) return;
        const key = `${job.id}:${job.version}`;
        const culpritError = this.#culprits.get(key);
        const bystander = this.#bystanders.delete(key);
        this.#culprits.delete(key);
        const lost: LostAttempt =
          culpritError === undefined
            ? { id: job.id, version: job.version }
            : { id: job.id, version: job.version, culpritError };
        this.#listener.onThreadLost(this.execution, [lost], cause, task.terminated, bystander);
      },
    );
  }

  /** Forgets a task that ended; `false` when it was not the current one. */
  #end(id: number, task: Task): boolean {
    if (this.#tasks.get(id) !== task) return false;
    this.#tasks.delete(id);
    return true;
  }

  #onMessage(message: FromThread, channel: BroadcastChannel): void {
    switch (message.type) {
      case 'step':
      case 'lease-check':
        // Every worker of the pool hears the answer; only the one that asked has the request.
        this.#listener.onStepWrite(message, (answer) => channel.postMessage(answer));
        return;
      case 'progress': {
        const progress = JSON.parse(message.progress) as ProgressTuple[];
        const current = progress.filter(([id, version]) => this.#tasks.get(id)?.version === version);
        if (current.length > 0) this.#listener.onProgress(current);
        return;
      }
      case 'logs':
        this.#listener.onLogs(JSON.parse(message.logs) as LogBatch[]);
        return;
      case 'culprit':
        // Only attempts still on their worker: an ended one has its outcome already, and its
        // stray timer ends a worker that may be idle.
        if (this.#tasks.get(message.id)?.version === message.version) {
          this.#culprits.set(`${message.id}:${message.version}`, message.error);
        } else if (message.neighbours.length === 0) {
          this.#idleCause = { cause: new Error(message.error), culpritKnown: true };
        }
        for (const [id, version] of message.neighbours) {
          if (this.#tasks.get(id)?.version === version) this.#bystanders.add(`${id}:${version}`);
        }
        return;
      case 'stray-error':
        this.#options.logger.warn(
          { jobId: message.id, version: message.version, error: message.error },
          'a handler threw after its attempt had ended; the attempt keeps its outcome',
        );
        return;
      case 'results':
      case 'ready':
      case 'load-error':
        return;
    }
  }
}

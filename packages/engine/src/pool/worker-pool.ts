import { MessageChannel } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { Piscina } from 'piscina';
import { NudgeError, type JsonValue } from '@nudge/core';
import type { DescribeResult, PoolTask, RunResult, WorkerData } from './task.js';

/** Options for {@link WorkerPool.start}. */
export interface WorkerPoolOptions {
  /** Path (relative to the working directory) or `file:` URL of the handler module. */
  readonly handlers: string;
  /** Threads, which are also the engine's slots. */
  readonly threads: number;
  /** V8 old-generation heap limit of each thread, in MB; a thread over it dies, not the service. */
  readonly maxOldGenerationSizeMb: number;
}

/** One attempt running in a thread. */
export interface PoolRun {
  /** Settles with the handler's answer; rejects when the thread died or was terminated. */
  readonly done: Promise<RunResult>;
  /** Fires the handler's `ctx.signal` (cooperative). */
  signal(reason: string): void;
  /** Terminates the thread running the attempt; `done` rejects with an `AbortError`. */
  terminate(): void;
}

/**
 * The Piscina pool that runs handlers. Every thread starts at once and stays; the engine never
 * submits more tasks than threads, so Piscina's queue stays empty.
 */
export class WorkerPool {
  readonly #piscina: Piscina<PoolTask, RunResult | DescribeResult>;
  /** Kinds the handler module exports, sorted. */
  readonly kinds: readonly string[];

  private constructor(piscina: Piscina<PoolTask, RunResult | DescribeResult>, kinds: string[]) {
    this.#piscina = piscina;
    this.kinds = kinds;
  }

  /**
   * Starts the threads and loads the handler module in one of them to learn its kinds.
   * @throws NudgeError `HANDLERS_INVALID` when the module cannot be loaded or exports no handler
   */
  static async start(options: WorkerPoolOptions): Promise<WorkerPool> {
    const handlersUrl = options.handlers.startsWith('file:')
      ? options.handlers
      : pathToFileURL(resolve(options.handlers)).href;
    const workerData: WorkerData = { handlersUrl };
    const piscina = new Piscina<PoolTask, RunResult | DescribeResult>({
      filename: new URL('./worker.js', import.meta.url).href,
      minThreads: options.threads,
      maxThreads: options.threads,
      idleTimeout: Number.POSITIVE_INFINITY,
      concurrentTasksPerWorker: 1,
      workerData,
      resourceLimits: { maxOldGenerationSizeMb: options.maxOldGenerationSizeMb },
    });
    try {
      const { kinds } = (await piscina.run({ type: 'describe' })) as DescribeResult;
      return new WorkerPool(piscina, kinds);
    } catch (error) {
      await piscina.destroy();
      const reason = error instanceof Error ? error.message : String(error);
      throw new NudgeError('HANDLERS_INVALID', `cannot load handlers from ${options.handlers}: ${reason}`, {
        cause: error,
      });
    }
  }

  /** Starts one attempt; the caller must not exceed the thread count. */
  run(task: { jobId: number; kind: string; payload: JsonValue; attempt: number }): PoolRun {
    const controller = new AbortController();
    const { port1, port2 } = new MessageChannel();
    const done = this.#piscina.run(
      { type: 'run', ...task, port: port2 },
      { signal: controller.signal, transferList: [port2] },
    ) as Promise<RunResult>;
    const settled = done.finally(() => port1.close());
    return {
      done: settled,
      signal: (reason) => port1.postMessage({ type: 'abort', reason }),
      terminate: () => controller.abort(),
    };
  }

  /** Stops every thread (running tasks are terminated). */
  async destroy(): Promise<void> {
    await this.#piscina.destroy();
  }
}

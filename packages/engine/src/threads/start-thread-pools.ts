import { EXECUTION_CLASSES, type ExecutionClass } from '@nudge/core';
import type { ResolvedEngineOptions } from '../engine-options.js';
import { handlersUrl } from './describe-handlers.js';
import type { KindInfo } from './handler.js';
import { ThreadPool, type ThreadPoolListener } from './thread-pool.js';

/**
 * Starts a thread pool for each execution class the handler module has kinds of: `threads`
 * threads of one slot each for `cpu`, `asyncThreads` threads of `asyncConcurrency` slots for
 * `async`. A class without kinds gets no thread.
 *
 * @throws Error when a thread cannot load the handler module (the pools started are stopped)
 */
export async function startThreadPools(
  options: ResolvedEngineOptions,
  kinds: readonly KindInfo[],
  listener: ThreadPoolListener,
): Promise<Map<ExecutionClass, ThreadPool>> {
  const pools = new Map<ExecutionClass, ThreadPool>();
  try {
    for (const execution of EXECUTION_CLASSES) {
      if (!kinds.some((k) => k.execution === execution)) continue;
      const cpu = execution === 'cpu';
      const pool = await ThreadPool.start(
        {
          execution,
          handlersUrl: handlersUrl(options.handlers),
          threads: cpu ? options.threads : options.asyncThreads,
          perThread: cpu ? 1 : options.asyncConcurrency,
          maxOldGenerationSizeMb: options.maxOldGenerationSizeMb,
          niceIncrement: cpu ? options.cpuThreadNice : 0,
          progressIntervalMs: options.progressIntervalMs,
          logger: options.logger,
        },
        listener,
      );
      pools.set(execution, pool);
    }
  } catch (error) {
    await Promise.all([...pools.values()].map((pool) => pool.destroy()));
    throw error;
  }
  return pools;
}

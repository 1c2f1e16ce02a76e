import { EXECUTION_CLASSES, type ExecutionClass } from '@nudge/core';
import type { ResolvedEngineOptions } from '../engine-options.js';
import { handlersUrl } from './describe-handlers.js';
import type { ExecutionPool, ExecutionPoolListener } from './execution-pool.js';
import type { KindInfo } from '../handlers/handler.js';
import { PiscinaPool } from './piscina-pool.js';
import { ThreadPool } from './thread-pool.js';

/**
 * Starts the pool of each execution class the handler module has kinds of: for `cpu`, Piscina
 * pools of `threads` workers running one job each (a pool of its own for each kind that declares
 * `maxYoungGenerationSizeMb`); for `async`, `asyncThreads` batched threads of `asyncConcurrency`
 * slots. A class without kinds gets no thread.
 *
 * @throws Error when a thread cannot load the handler module (the pools started are stopped)
 */
export async function startThreadPools(
  options: ResolvedEngineOptions,
  kinds: readonly KindInfo[],
  listener: ExecutionPoolListener,
): Promise<Map<ExecutionClass, ExecutionPool>> {
  const pools = new Map<ExecutionClass, ExecutionPool>();
  const common = {
    handlersUrl: handlersUrl(options.handlers),
    maxOldGenerationSizeMb: options.maxOldGenerationSizeMb,
    progressIntervalMs: options.progressIntervalMs,
    logLinesPerJob: options.logLinesPerJob,
    logger: options.logger,
    ...(options.tracing
      ? {
          tracing:
            options.tracing.threadSetup === undefined
              ? {}
              : { setupUrl: handlersUrl(options.tracing.threadSetup) },
        }
      : {}),
  };
  try {
    for (const execution of EXECUTION_CLASSES) {
      const ofClass = kinds.filter((k) => k.execution === execution);
      if (ofClass.length === 0) continue;
      if (execution === 'cpu') {
        const young = new Map<string, number>();
        for (const k of ofClass) {
          if (k.maxYoungGenerationSizeMb !== undefined) young.set(k.kind, k.maxYoungGenerationSizeMb);
        }
        const pool = await PiscinaPool.start(
          {
            ...common,
            execution,
            threads: options.threads,
            youngGenerationMbByKind: young,
            niceIncrement: options.cpuThreadNice,
          },
          listener,
        );
        pools.set(execution, pool);
        continue;
      }
      const pool = await ThreadPool.start(
        {
          ...common,
          execution,
          threads: options.asyncThreads,
          perThread: options.asyncConcurrency,
          niceIncrement: 0,
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

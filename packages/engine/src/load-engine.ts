import type { ExecutionClass } from '@nudge/core';
import type { AttemptSupervisor } from './attempt-supervisor.js';
import type { ResolvedSchedule } from './cron-schedule.js';
import { checkSchedules } from './cron-schedules-check.js';
import { resolveEngineOptions, type EngineOptions, type ResolvedEngineOptions } from './engine-options.js';
import type { KindInfo } from './handlers/handler.js';
import { describeHandlers } from './threads/describe-handlers.js';
import type { ExecutionPool } from './threads/execution-pool.js';
import { startThreadPools } from './threads/start-thread-pools.js';

/** What an engine is built from, once its options, handler module and threads are ready. */
export interface LoadedEngine {
  readonly options: ResolvedEngineOptions;
  readonly kinds: readonly KindInfo[];
  readonly pools: Map<ExecutionClass, ExecutionPool>;
  readonly schedules: readonly ResolvedSchedule[];
  /** Routes the threads' reports to the supervisor, once it exists. */
  readonly attach: (supervisor: AttemptSupervisor) => void;
}

/**
 * Validates the options, loads the handler module to learn its kinds and schedules, and starts
 * the threads of each execution class that has kinds.
 * @throws RangeError when an option is out of range
 * @throws NudgeError with `option: 'schedules'` when a schedule of `schedules` is invalid, of a
 *   kind the handler module lacks, or named as one of the module's (`INVALID_CONFIG`, or the job
 *   contract's code for a bad job field); the message starts with `schedules: `
 * @throws NudgeError `HANDLERS_INVALID` when the handler module cannot be loaded, a kind declares
 *   a field wrongly (the message names the kind and the field), or its `schedules` export is
 *   invalid (the message names the schedule and the field)
 */
export async function loadEngine(given: EngineOptions): Promise<LoadedEngine> {
  const options = resolveEngineOptions(given);
  const described = await describeHandlers(options.handlers, options.maxOldGenerationSizeMb);
  const { kinds } = described;
  const schedules = checkSchedules(described.schedules, options.schedules, new Set(kinds.map((k) => k.kind)));
  // Threads start before the supervisor exists; their reports reach it once it does.
  let target: AttemptSupervisor | undefined;
  const pools = await startThreadPools(options, kinds, {
    onResults: (execution, results) => target?.onResults(execution, results),
    onThreadLost: (...args) => target?.onThreadLost(...args),
    onThreadReady: (execution) => target?.onThreadReady(execution),
    onProgress: (progress) => target?.onProgress(progress),
    onLogs: (batches) => target?.onLogs(batches),
    onStepWrite: (message, reply) => target?.onStepWrite(message, reply),
  });
  return { options, kinds, pools, schedules, attach: (supervisor) => (target = supervisor) };
}

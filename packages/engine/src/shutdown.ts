import type { Claimer } from './claimer.js';
import type { ResolvedEngineOptions } from './engine-options.js';
import type { Executor } from './executor.js';
import type { LeaseKeeper } from './lease-keeper.js';
import type { OutcomeWriter } from './outcome-writer.js';
import type { ProgressWriter } from './progress-writer.js';

/** What {@link shutdownEngine} stops, in order. */
export interface ShutdownParts {
  readonly options: ResolvedEngineOptions;
  /** Background services stopped first (claiming, sweeps, scheduling). */
  readonly services: ReadonlyArray<{ stop(): void }>;
  readonly claimer: Claimer;
  readonly executor: Executor;
  readonly leaseKeeper: LeaseKeeper;
  readonly writer: OutcomeWriter;
  readonly progress: ProgressWriter;
  /** Whether the engine was started (registered in the instance registry). */
  readonly started: boolean;
  /** Resolves when a slot is next freed. */
  readonly slotFreed: () => Promise<void>;
}

/** Longest wait for terminated threads to report, in ms: a bound, not an expected duration. */
const THREAD_EXIT_TIMEOUT_MS = 60_000;

/**
 * Graceful shutdown, in order: stop claiming and the background services; give running jobs
 * `shutdownGraceMs` to finish; abort the rest (their `ctx.signal` fires, and threads still busy
 * `abortGraceMs` later are terminated) so they are released to `PENDING` for another instance;
 * keep heartbeating until then; write pending progress and every outcome; stop the threads; leave the registry.
 */
export async function shutdownEngine(parts: ShutdownParts): Promise<void> {
  const { options, executor } = parts;
  for (const service of parts.services) service.stop();
  executor.stop();
  await parts.claimer.idle();
  if (!(await executor.whenIdle(options.shutdownGraceMs, parts.slotFreed))) {
    options.logger.info(
      { running: executor.running },
      'shutdown grace over: aborting running jobs and releasing them',
    );
    executor.abortAll();
    await executor.whenIdle(options.abortGraceMs + THREAD_EXIT_TIMEOUT_MS, parts.slotFreed);
  }
  parts.leaseKeeper.stop();
  await parts.progress.stop();
  await parts.writer.flush(true);
  await executor.destroy();
  if (parts.started) {
    await parts.leaseKeeper
      .unregister()
      .catch((error: unknown) =>
        options.logger.warn(
          { err: error },
          'leaving the instance registry failed; the row expires on its own',
        ),
      );
  }
}

import type { AttemptSupervisor } from './attempt-supervisor.js';
import type { InstanceRegistry } from './instance-registry.js';
import type { ResolvedEngineOptions } from './engine-options.js';
import type { OutcomeWriter } from './outcome-writer.js';
import type { ProgressWriter } from './progress-writer.js';
import type { LogWriter } from './log-writer.js';
import type { EngineService } from './service.js';

/** What {@link shutdownEngine} stops: the services (in start order) and what outlives them. */
export interface ShutdownParts {
  readonly services: readonly EngineService[];
  readonly supervisor: AttemptSupervisor;
  readonly instances: InstanceRegistry;
  readonly writer: OutcomeWriter;
  readonly progress: ProgressWriter;
  readonly logs: LogWriter;
}

/** Longest wait for terminated threads to report, in ms: a bound, not an expected duration. */
const THREAD_EXIT_TIMEOUT_MS = 60_000;

/**
 * Graceful shutdown, in order: stop claiming and the background services (in reverse start
 * order); give running jobs `shutdownGraceMs` to finish; abort the rest (their `ctx.signal`
 * fires, and threads still busy `abortGraceMs` later are terminated) so they are released to
 * `PENDING` for another instance; keep heartbeating until then; write pending progress, every
 * outcome and the log lines left; stop the threads; leave the registry.
 */
export async function shutdownEngine(options: ResolvedEngineOptions, parts: ShutdownParts): Promise<void> {
  const { supervisor } = parts;
  const last = [...parts.services].reverse();
  // Stopped together and at once, before the supervisor: a claim still in flight finds it
  // stopped and releases what it brings back.
  const stopping = last.filter((s) => !s.outlivesAttempts).map(async (s) => s.stop());
  supervisor.stop();
  await Promise.all(stopping);
  if (!(await supervisor.whenIdle(options.shutdownGraceMs))) {
    options.logger.info(
      { running: supervisor.running },
      'shutdown grace over: aborting running jobs and releasing them',
    );
    supervisor.abortAll();
    await supervisor.whenIdle(options.abortGraceMs + THREAD_EXIT_TIMEOUT_MS);
  }
  await Promise.all(last.filter((s) => s.outlivesAttempts).map(async (s) => s.stop()));
  await parts.progress.stop();
  await parts.writer.flush(true);
  await parts.logs.stop();
  await supervisor.destroy();
  await parts.instances
    .unregister()
    .catch((error: unknown) =>
      options.logger.warn({ err: error }, 'leaving the instance registry failed; the row expires on its own'),
    );
}

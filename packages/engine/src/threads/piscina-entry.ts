// The module every Piscina worker loads (`cpu` kinds): its default export runs one attempt per
// task and resolves with the attempt's result. The handler module is loaded once per worker, on
// the first task (the pool's warm-up). Aborts (`ctx.signal`) come on a broadcast channel of the
// pool, with the answers to step writes; progress, culprits, step writes and stray errors go to
// the pool as `message` events.
import { BroadcastChannel, parentPort, workerData } from 'node:worker_threads';
import { AttemptRunner } from './attempt-runner.js';
import { AttemptTracing } from './attempt-tracing.js';
import { setUpTracing } from './thread-tracing-setup.js';
import { loadHandlerModule } from './handler-module.js';
import { lowerThreadPriority } from './lower-thread-priority.js';
import type { BroadcastToThreads, FromThread, PiscinaTask, PiscinaTaskResult } from './thread-messages.js';
import type { PiscinaThreadData } from './piscina-thread-data.js';

const data = workerData as PiscinaThreadData;
const port = parentPort;
const resolvers = new Map<number, (result: PiscinaTaskResult) => void>();

async function startRunner(): Promise<AttemptRunner> {
  lowerThreadPriority(data.niceIncrement);
  await setUpTracing(data.tracing);
  const kinds = await loadHandlerModule(data.handlersUrl);
  const runner = new AttemptRunner({
    kinds,
    progressIntervalMs: data.progressIntervalMs,
    logLinesPerJob: data.logLinesPerJob,
    send: (message: FromThread) => port?.postMessage(message),
    ...(data.tracing ? { tracing: new AttemptTracing() } : {}),
    // The attempt's last lines ride with its result: messages on the parent port could arrive
    // after the task's answer.
    settled: (result, logs) => {
      const resolve = resolvers.get(result[0]);
      resolvers.delete(result[0]);
      resolve?.([result, logs ?? null]);
    },
  });
  runner.installProcessHooks();
  const aborts = new BroadcastChannel(data.abortChannel);
  aborts.unref();
  aborts.onmessage = (event) => {
    const message = (event as { data: BroadcastToThreads }).data;
    if (message.type === 'step-written') runner.stepWritten(message);
    else runner.abort(message.leases, message.reason);
  };
  return runner;
}

// No top-level await: `require()` of this module (Piscina tries it first) must not fail on it.
const runnerReady = startRunner();
runnerReady.catch(() => undefined);

/**
 * Runs one attempt of a task's job and resolves with its result and its last log lines; `null`
 * (the warm-up task) resolves `null` once the handler module is loaded.
 * @throws Error when the handler module cannot be loaded
 */
export default async function runAttempt(task: PiscinaTask | null): Promise<PiscinaTaskResult | null> {
  const runner = await runnerReady;
  if (task === null) return null;
  const [job, freshUntil] = task;
  return new Promise((resolve) => {
    resolvers.set(job[0], resolve);
    runner.start(job, freshUntil);
  });
}

// The module every Piscina worker loads (`cpu` kinds): its default export runs one attempt per
// task and resolves with the attempt's result. The handler module is loaded once per worker, on
// the first task (the pool's warm-up). Aborts (`ctx.signal`) come on a broadcast channel of the
// pool; progress, culprits and stray errors go to the pool as `message` events.
import { BroadcastChannel, parentPort, workerData } from 'node:worker_threads';
import { AttemptRunner } from './attempt-runner.js';
import { loadHandlerModule } from './handler-module.js';
import { lowerThreadPriority } from './lower-thread-priority.js';
import type { AbortMessage, AttemptResult, FromThread, JobTuple } from './thread-messages.js';
import type { PiscinaThreadData } from './piscina-thread-data.js';

const data = workerData as PiscinaThreadData;
const port = parentPort;
const resolvers = new Map<number, (result: AttemptResult) => void>();

async function startRunner(): Promise<AttemptRunner> {
  lowerThreadPriority(data.niceIncrement);
  const kinds = await loadHandlerModule(data.handlersUrl);
  const runner = new AttemptRunner({
    kinds,
    progressIntervalMs: data.progressIntervalMs,
    send: (message: FromThread) => port?.postMessage(message),
    settled: (result) => {
      const resolve = resolvers.get(result[0]);
      resolvers.delete(result[0]);
      resolve?.(result);
    },
  });
  runner.installProcessHooks();
  const aborts = new BroadcastChannel(data.abortChannel);
  aborts.unref();
  aborts.onmessage = (event) => {
    const message = (event as { data: AbortMessage }).data;
    runner.abort(message.leases, message.reason);
  };
  return runner;
}

// No top-level await: `require()` of this module (Piscina tries it first) must not fail on it.
const runnerReady = startRunner();
runnerReady.catch(() => undefined);

/**
 * Runs one attempt of `job` and resolves with its result; `null` (the warm-up task) resolves
 * `null` once the handler module is loaded.
 * @throws Error when the handler module cannot be loaded
 */
export default async function runAttempt(job: JobTuple | null): Promise<AttemptResult | null> {
  const runner = await runnerReady;
  if (job === null) return null;
  return new Promise((resolve) => {
    resolvers.set(job[0], resolve);
    runner.start(job);
  });
}

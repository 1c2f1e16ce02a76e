// Entry module of the batched worker threads (`async` kinds, and the thread that describes the
// handler module): loads the user's handler module once, then runs the attempts the engine
// sends, many at once, and reports their ends in batches (one message per turn of the event
// loop, however many attempts settled in it).
import { parentPort, workerData } from 'node:worker_threads';
import { AttemptRunner } from './attempt-runner.js';
import { AttemptTracing } from './attempt-tracing.js';
import { setUpTracing } from './thread-tracing-setup.js';
import { readSchedulesExport, loadHandlerModule } from './handler-module.js';
import { lowerThreadPriority } from './lower-thread-priority.js';
import type { AttemptResult, FromThread, JobTuple, ThreadData, ToThread } from './thread-messages.js';

const port = parentPort;
if (!port) throw new Error('thread-entry must run in a worker thread');
const { handlersUrl, role, niceIncrement, progressIntervalMs, logLinesPerJob, tracing } =
  workerData as ThreadData;
lowerThreadPriority(niceIncrement);
const send = (message: FromThread): void => port.postMessage(message);
const traced = tracing !== undefined && role !== 'describe';

const kinds = await setUpTracing(traced ? tracing : undefined)
  .then(() => loadHandlerModule(handlersUrl))
  .catch((error: unknown) => {
    send({ type: 'load-error', message: error instanceof Error ? error.message : String(error) });
    process.exit(1);
  });

let pending: AttemptResult[] = [];
let flushScheduled = false;

function flush(): void {
  flushScheduled = false;
  const results = pending;
  pending = [];
  send({ type: 'results', results: JSON.stringify(results) });
}

const runner = new AttemptRunner({
  kinds,
  progressIntervalMs,
  logLinesPerJob,
  send,
  ...(traced ? { tracing: new AttemptTracing() } : {}),
  settled: (result, logs) => {
    // On the same port as the results, and before them: the engine has the lines first.
    if (logs) send({ type: 'logs', logs: JSON.stringify([logs]) });
    pending.push(result);
    if (!flushScheduled) {
      flushScheduled = true;
      setImmediate(flush);
    }
  },
});
runner.installProcessHooks();

send({
  type: 'ready',
  // Plain data only: the handler and the compiled check stay on this thread.
  kinds: [...kinds.values()].map(({ handler: _handler, check: _check, ...info }) => info),
  ...(role === 'describe' ? { schedules: await readSchedulesExport(handlersUrl) } : {}),
});
if (role === 'describe') process.exit(0);

port.on('message', (message: ToThread) => {
  if (message.type === 'run') {
    for (const job of JSON.parse(message.jobs) as JobTuple[]) runner.start(job, message.freshUntil);
    return;
  }
  if (message.type === 'step-written') {
    runner.stepWritten(message);
    return;
  }
  runner.abort(message.leases, message.reason);
});

// The nudge handler module of the bench (`NUDGE_HANDLERS`): every export is a job kind, and each
// runs the body all systems share, so nudge does exactly the work its peers do.
import { runBenchJob, type BenchKind, type BenchPayload } from './bench-job.js';
import { NUDGE_ASYNC_KINDS } from './nudge/nudge-settings.js';

/** A nudge handler as the engine calls it. */
type NudgeHandler = (payload: unknown) => Promise<null>;

/** The object form of an `async` kind: many jobs at once per thread. */
interface AsyncKind {
  readonly handler: NudgeHandler;
  readonly execution: 'async';
}

function handlerOf(kind: BenchKind): NudgeHandler {
  return async (payload) => {
    await runBenchJob(kind, payload as BenchPayload);
    return null;
  };
}

/** An `async` kind once the engine has them ({@link NUDGE_ASYNC_KINDS}), a plain function until then. */
function asyncKind(kind: BenchKind): NudgeHandler | AsyncKind {
  const handler = handlerOf(kind);
  return NUDGE_ASYNC_KINDS ? { handler, execution: 'async' } : handler;
}

/** Reports and returns: the queue's own cost. */
export const noop = asyncKind('noop');

/** Reports at its start: enqueue → start latency. */
export const latency = asyncKind('latency');

/** Reports at its start, then waits 1 ms of async I/O: the steady scenario's job. */
export const io = asyncKind('io');

/** Burns the calibrated CPU time, then reports: a `cpu` kind, one job per thread. */
export const burn = handlerOf('burn');

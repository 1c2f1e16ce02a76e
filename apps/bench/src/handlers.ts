// The nudge handler module of the bench (`NUDGE_HANDLERS`): every export is a job kind, and each
// runs the body all systems share, so nudge does exactly the work its peers do.
import { BENCH_STEPS, runBenchJob, type BenchKind, type BenchPayload } from './bench-job.js';
import { NUDGE_ASYNC_KINDS } from './nudge/nudge-settings.js';
import { sendReport } from './report/report-sender.js';

/** The part of the engine's `HandlerContext` (@nudge/server/handlers) the `steps` kind uses. */
interface StepContext {
  step<T>(name: string, fn: () => T | Promise<T>): Promise<T>;
}

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

/**
 * {@link BENCH_STEPS} durable no-op steps (`ctx.step('s' + i, () => i)`, one database write each),
 * then one report: the steps scenario's job, an `async` kind as `noop` is. nudge only.
 */
export const steps = {
  execution: 'async',
  handler: async (payload: unknown, ctx: StepContext): Promise<null> => {
    for (let i = 0; i < BENCH_STEPS; i += 1) await ctx.step(`s${i}`, () => i);
    const { run, seq } = payload as BenchPayload;
    await sendReport({ run, seq });
    return null;
  },
} as const;

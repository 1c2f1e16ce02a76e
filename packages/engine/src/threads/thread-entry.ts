// Entry module of every worker thread: loads the user's handler module once, then runs the
// attempts the engine sends, many at once for an `async` thread, and reports their ends in
// batches (one message per turn of the event loop, however many attempts settled in it).
import { AsyncLocalStorage } from 'node:async_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import {
  findUnstorableJsonText,
  MAX_FOLLOW_UPS,
  MAX_JSON_DEPTH,
  MAX_RESULT_BYTES,
  utf8BytesOver,
  type JsonValue,
} from '@nudge/core';
import { followUpOf, type FollowUpWire } from './follow-up.js';
import type { HandlerContext } from './handler.js';
import { readSchedulesExport, loadHandlerModule, type LoadedKind } from './handler-module.js';
import { lowerThreadPriority } from './lower-thread-priority.js';
import { progressJsonOf } from './progress-value.js';
import type {
  AttemptResult,
  FromThread,
  JobTuple,
  ProgressTuple,
  ThreadData,
  ToThread,
} from './thread-messages.js';

/** An attempt running on this thread. */
interface Running {
  readonly id: number;
  readonly version: number;
  /** Created when the handler first reads `ctx.signal`: most handlers never do. */
  controller: AbortController | undefined;
  /** Why the engine asked the attempt to stop, if it did before the signal was read. */
  abortReason: Error | undefined;
  settled: boolean;
  /** The latest `ctx.progress` value not yet sent, as JSON text. */
  unsentProgress: string | undefined;
  /** Jobs recorded with `ctx.enqueue`, sent with a success. */
  followUps: FollowUpWire[] | undefined;
}

const port = parentPort;
if (!port) throw new Error('thread-entry must run in a worker thread');
const { handlersUrl, role, niceIncrement, progressIntervalMs } = workerData as ThreadData;
lowerThreadPriority(niceIncrement);
const send = (message: FromThread): void => port.postMessage(message);

/** The attempt whose code is on the stack, across its awaits and timers. */
const current = new AsyncLocalStorage<Running>();
const running = new Map<number, Running>();
let pending: AttemptResult[] = [];
let flushScheduled = false;
/** Attempts with progress not yet sent. */
const progressed = new Set<Running>();
let progressTimer: NodeJS.Timeout | undefined;
let progressSentAt = Number.NEGATIVE_INFINITY;

// Progress goes at most once per interval, for every attempt of this thread in one message.
function sendProgress(): void {
  progressTimer = undefined;
  progressSentAt = performance.now();
  const tuples: ProgressTuple[] = [];
  for (const entry of progressed) {
    if (entry.unsentProgress !== undefined) tuples.push([entry.id, entry.version, entry.unsentProgress]);
    entry.unsentProgress = undefined;
  }
  progressed.clear();
  if (tuples.length > 0) send({ type: 'progress', progress: JSON.stringify(tuples) });
}

function reportProgress(entry: Running, value: unknown): void {
  const json = progressJsonOf(value);
  if (entry.settled) return;
  entry.unsentProgress = json;
  progressed.add(entry);
  if (progressTimer) return;
  const wait = Math.max(0, progressSentAt + progressIntervalMs - performance.now());
  progressTimer = setTimeout(sendProgress, wait);
}

function recordFollowUp(entry: Running, kind: unknown, payload: unknown, options: unknown): void {
  if (entry.settled) {
    throw new Error(`ctx.enqueue was called after job ${entry.id}'s attempt ended: nothing was enqueued`);
  }
  const followUp = followUpOf(kind, payload, options);
  const list = (entry.followUps ??= []);
  if (list.length >= MAX_FOLLOW_UPS) {
    throw new RangeError(`ctx.enqueue: an attempt may enqueue at most ${MAX_FOLLOW_UPS} follow-up jobs`);
  }
  list.push(followUp);
}

function flush(): void {
  flushScheduled = false;
  const results = pending;
  pending = [];
  send({ type: 'results', results: JSON.stringify(results) });
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

function settle(entry: Running, result: AttemptResult): void {
  if (entry.settled) return;
  entry.settled = true;
  running.delete(entry.id);
  progressed.delete(entry);
  pending.push(result);
  if (!flushScheduled) {
    flushScheduled = true;
    setImmediate(flush);
  }
}

function signalOf(entry: Running): AbortSignal {
  if (!entry.controller) {
    entry.controller = new AbortController();
    if (entry.abortReason) entry.controller.abort(entry.abortReason);
  }
  return entry.controller.signal;
}

async function invoke(entry: Running, job: JobTuple, kind: LoadedKind | undefined): Promise<void> {
  const { id, version } = entry;
  try {
    if (!kind) throw new Error(`no handler for kind "${job[2]}" in this thread`);
    const payload = JSON.parse(job[4]) as JsonValue;
    // A payload written around the API (plain SQL) may not match: it never will, so the job
    // fails for good without running the handler.
    const mismatch = kind.check?.(payload);
    if (mismatch !== undefined) {
      const error = `the payload does not match the schema of kind "${job[2]}": ${mismatch}`;
      settle(entry, [id, version, 2, error]);
      return;
    }
    const ctx: HandlerContext = {
      jobId: id,
      kind: job[2],
      attempt: job[3],
      version,
      get signal() {
        return signalOf(entry);
      },
      progress: (value) => reportProgress(entry, value),
      enqueue: (followUpKind, followUpPayload, options) =>
        recordFollowUp(entry, followUpKind, followUpPayload, options),
    };
    const value: unknown = await kind.handler(payload, ctx);
    let resultJson: string | null;
    try {
      // JSON.stringify returns undefined for a function or a symbol.
      const text: string | undefined = value === undefined ? undefined : JSON.stringify(value);
      resultJson = text ?? null;
    } catch (error) {
      const reason =
        error instanceof RangeError
          ? `it nests deeper than the stack allows (the limit is ${MAX_JSON_DEPTH} levels)`
          : `it is not JSON: ${errorMessage(error)}`;
      settle(entry, [
        id,
        version,
        0,
        `the handler's result cannot be stored: ${reason}`,
        entry.unsentProgress,
      ]);
      return;
    }
    const bytes = resultJson === null ? undefined : utf8BytesOver(resultJson, MAX_RESULT_BYTES);
    if (bytes !== undefined) {
      const error = `the handler's result is ${bytes} bytes of JSON, more than the limit of ${MAX_RESULT_BYTES} bytes (1 MiB): store large data elsewhere and return a reference to it`;
      settle(entry, [id, version, 2, error, entry.unsentProgress]);
      return;
    }
    const problem = resultJson === null ? undefined : findUnstorableJsonText(resultJson);
    if (problem) {
      const error = `the handler's result cannot be stored: ${problem.reason}`;
      settle(entry, [id, version, 0, error, entry.unsentProgress]);
      return;
    }
    // The common case stays a short tuple on the wire.
    if (entry.unsentProgress === undefined && entry.followUps === undefined) {
      settle(entry, [id, version, 1, resultJson]);
    } else {
      settle(entry, [id, version, 1, resultJson, entry.unsentProgress ?? null, entry.followUps ?? null]);
    }
  } catch (error) {
    settle(entry, [id, version, 0, errorMessage(error), entry.unsentProgress]);
  }
}

const kinds = await loadHandlerModule(handlersUrl).catch((error: unknown) => {
  send({ type: 'load-error', message: errorMessage(error) });
  process.exit(1);
});

// An error thrown outside an attempt's promise (from a timer, or a rejection nobody awaits) is
// charged to the attempt whose code threw it; the thread and its other attempts live on. One
// that no attempt owns ends the thread, as it would by default. One from an attempt that has
// ended already changes no outcome, but is reported so that it is logged.
process.on('uncaughtException', (error) => {
  const entry = current.getStore();
  if (!entry) throw error;
  if (entry.settled) {
    send({ type: 'stray-error', id: entry.id, version: entry.version, error: errorMessage(error) });
    return;
  }
  settle(entry, [
    entry.id,
    entry.version,
    0,
    `threw outside its promise: ${errorMessage(error)}`,
    entry.unsentProgress,
  ]);
});

// process.exit ends the thread; say whose code called it, so its neighbours are not blamed.
const exit = process.exit.bind(process);
process.exit = (code?: number | string | null) => {
  const entry = current.getStore();
  if (entry) {
    const error = `the handler called process.exit(${String(code ?? '')})`;
    send({ type: 'culprit', id: entry.id, version: entry.version, error });
  }
  return exit(code);
};

send({
  type: 'ready',
  // Plain data only: the handler and the compiled check stay on this thread.
  kinds: [...kinds.values()].map(({ handler: _handler, check: _check, ...info }) => info),
  ...(role === 'describe' ? { schedules: await readSchedulesExport(handlersUrl) } : {}),
});
if (role === 'describe') process.exit(0);

port.on('message', (message: ToThread) => {
  if (message.type === 'run') {
    for (const job of JSON.parse(message.jobs) as JobTuple[]) {
      const entry: Running = {
        id: job[0],
        version: job[1],
        controller: undefined,
        abortReason: undefined,
        settled: false,
        unsentProgress: undefined,
        followUps: undefined,
      };
      running.set(entry.id, entry);
      void current.run(entry, () => invoke(entry, job, kinds.get(job[2])));
    }
    return;
  }
  for (const id of message.ids) {
    const entry = running.get(id);
    if (!entry || entry.abortReason) continue;
    entry.abortReason = new Error(message.reason);
    entry.controller?.abort(entry.abortReason);
  }
});

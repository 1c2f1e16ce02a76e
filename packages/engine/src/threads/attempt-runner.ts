import { AsyncLocalStorage } from 'node:async_hooks';
import {
  findUnstorableJsonText,
  MAX_FOLLOW_UPS,
  MAX_JSON_DEPTH,
  MAX_RESULT_BYTES,
  utf8BytesOver,
  type JsonValue,
} from '@nudge/core';
import { AttemptStatus } from './attempt-status.js';
import type { AttemptSpan, AttemptTracing } from './attempt-tracing.js';
import { DurableSteps } from './durable-steps.js';
import { followUpOf, type FollowUpWire } from './follow-up.js';
import type { HandlerContext, JobDependency, JobLog } from '../handlers/handler.js';
import type { LoadedKind } from './handler-module.js';
import { progressJsonOf } from './progress-value.js';
import { ThreadLogs } from './thread-logs.js';
import { StepRequests } from './step-requests.js';
import {
  suspendWire,
  type AttemptResult,
  type FromThread,
  type JobTuple,
  type LeaseFresh,
  type LeaseTuple,
  type LogBatch,
  type ProgressTuple,
  type StepWrittenMessage,
} from './thread-messages.js';
import type { SuspendWait } from '@nudge/store';

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
  /** The job as claimed. */
  readonly job: JobTuple;
  /** Made by the first `ctx.step`, `ctx.sleep` or `ctx.waitForSignal` of the attempt. */
  durable: DurableSteps | undefined;
  /** Step writes and lease checks sent so far, to number the next request. */
  requests: number;
  /** Until when its lease counts as fresh (see `LeaseFresh`). */
  freshUntil: LeaseFresh;
  /** The attempt's span, when the thread traces. */
  readonly span: AttemptSpan | undefined;
}

/** What an {@link AttemptRunner} needs from the thread it runs in. */
export interface AttemptRunnerOptions {
  /** The handler module's kinds, loaded in this thread. */
  readonly kinds: ReadonlyMap<string, LoadedKind>;
  /** Shortest time between two progress messages of this thread, in ms (and between two log messages). */
  readonly progressIntervalMs: number;
  /** Most `ctx.log` lines one attempt sends; later ones are counted as dropped. */
  readonly logLinesPerJob: number;
  /** Sends a message to the engine (progress, logs, culprits, stray errors). */
  readonly send: (message: FromThread) => void;
  /**
   * An attempt ended; called once per attempt, with its `ctx.log` lines not sent yet, which the
   * caller delivers before the result.
   */
  readonly settled: (result: AttemptResult, logs: LogBatch | undefined) => void;
  /**
   * Spans of the attempts, when the engine traces: jobs then come as traced tuples (see
   * `JobTuple`). @defaultValue none
   */
  readonly tracing?: AttemptTracing;
}

/** Aborts that overtook their attempt's start, kept at most this many (the oldest go first). */
const MAX_EARLY_ABORTS = 1000;

function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

/**
 * Runs handlers inside a worker thread: the one place that builds `ctx`, checks payloads against
 * the kind's schema and results against the storage limits, sends throttled progress, and
 * charges an error thrown outside a handler's promise (or a `process.exit`) to the attempt whose
 * code raised it. Both execution pools run their attempts through it: the batched threads of
 * `async` kinds and the Piscina workers of `cpu` kinds.
 */
export class AttemptRunner {
  readonly #options: AttemptRunnerOptions;
  /** The attempt whose code is on the stack, across its awaits and timers. */
  readonly #current = new AsyncLocalStorage<Running>();
  readonly #running = new Map<number, Running>();
  readonly #earlyAborts = new Map<string, string>();
  /** Attempts with progress not yet sent. */
  readonly #progressed = new Set<Running>();
  /** Step writes and lease checks sent to the engine and not yet answered. */
  readonly #requests: StepRequests;
  #progressTimer: NodeJS.Timeout | undefined;
  #progressSentAt = Number.NEGATIVE_INFINITY;
  readonly #logs: ThreadLogs;

  constructor(options: AttemptRunnerOptions) {
    this.#options = options;
    this.#requests = new StepRequests(options.send);
    this.#logs = new ThreadLogs({
      intervalMs: options.progressIntervalMs,
      linesPerAttempt: options.logLinesPerJob,
      send: (batches) => options.send({ type: 'logs', logs: JSON.stringify(batches) }),
    });
  }

  /**
   * Charges an error thrown outside an attempt's promise (from a timer, or a rejection nobody
   * awaits) to the attempt whose code threw it; the thread and its other attempts live on. One
   * that no attempt owns ends the thread, as it would by default; one from an attempt that ended
   * already changes no outcome, but is reported so that it is logged. A `process.exit` call names
   * its caller before the thread ends, so that its neighbours are not blamed.
   */
  installProcessHooks(): void {
    process.on('uncaughtException', (error) => {
      const entry = this.#current.getStore();
      if (!entry) throw error;
      if (entry.settled) {
        const { id, version } = entry;
        this.#options.send({ type: 'stray-error', id, version, error: errorMessage(error) });
        return;
      }
      const message = `threw outside its promise: ${errorMessage(error)}`;
      this.#settle(entry, [entry.id, entry.version, AttemptStatus.threw, message, entry.unsentProgress]);
    });
    const exit = process.exit.bind(process);
    process.exit = (code?: number | string | null) => {
      const entry = this.#current.getStore();
      if (entry) {
        const neighbours: LeaseTuple[] = [];
        for (const other of this.#running.values()) {
          if (other !== entry) neighbours.push([other.id, other.version]);
        }
        const error = `the handler called process.exit(${String(code ?? '')})`;
        this.#options.send({ type: 'culprit', id: entry.id, version: entry.version, error, neighbours });
      }
      return exit(code);
    };
  }

  /**
   * Starts an attempt of `job`; its end goes to `settled`.
   * @param freshUntil - until when its lease counts as fresh (see `LeaseFresh`)
   */
  start(job: JobTuple, freshUntil: LeaseFresh): void {
    const tracing = this.#options.tracing;
    const entry: Running = {
      id: job[0],
      version: job[1],
      controller: undefined,
      abortReason: undefined,
      settled: false,
      unsentProgress: undefined,
      followUps: undefined,
      job,
      durable: undefined,
      requests: 0,
      freshUntil,
      span: tracing?.begin(job),
    };
    const key = `${entry.id}:${entry.version}`;
    const early = this.#earlyAborts.get(key);
    if (early !== undefined) {
      this.#earlyAborts.delete(key);
      entry.abortReason = new Error(early);
    }
    this.#running.set(entry.id, entry);
    const invoke = (): Promise<void> =>
      this.#current.run(entry, () => this.#invoke(entry, job, this.#options.kinds.get(job[2])));
    void (tracing && entry.span ? tracing.run(entry.span, invoke) : invoke());
  }

  /** Fires `ctx.signal` of these attempts; one not started yet gets it when it starts. */
  abort(leases: readonly LeaseTuple[], reason: string): void {
    for (const [id, version] of leases) {
      const entry = this.#running.get(id);
      if (!entry || entry.version !== version) {
        this.#earlyAborts.set(`${id}:${version}`, reason);
        if (this.#earlyAborts.size > MAX_EARLY_ABORTS) {
          this.#earlyAborts.delete(this.#earlyAborts.keys().next().value as string);
        }
        continue;
      }
      if (entry.abortReason) continue;
      entry.abortReason = new Error(reason);
      entry.controller?.abort(entry.abortReason);
    }
  }

  /** The engine answered a step write or lease check of this thread (one of another Piscina worker is ignored). */
  stepWritten(message: StepWrittenMessage): void {
    this.#requests.answered(message);
  }

  #durableOf(entry: Running): DurableSteps {
    entry.durable ??= new DurableSteps(
      {
        jobId: entry.id,
        attempt: entry.job[3],
        write: (step) => this.#requests.write(entry, step),
        confirmLease: () => this.#requests.confirmLease(entry),
        suspend: (name, wait) => this.#suspend(entry, name, wait),
        ended: () => entry.settled,
        aborted: () => entry.abortReason,
      },
      entry.job[6] ?? undefined,
    );
    return entry.durable;
  }

  /** Ends the attempt uncharged to sleep or wait; the handler's code after the call never runs. */
  #suspend(entry: Running, name: string, wait: SuspendWait): Promise<never> {
    const { id, version } = entry;
    this.#settle(entry, [
      id,
      version,
      AttemptStatus.suspended,
      suspendWire(name, wait),
      entry.unsentProgress,
    ]);
    entry.abortReason ??= new Error(
      `the attempt is suspended (${wait.type === 'sleep' ? 'sleeping' : 'waiting for a signal'}: "${name}")`,
    );
    entry.controller?.abort(entry.abortReason);
    return new Promise<never>(() => undefined);
  }

  // Progress goes at most once per interval, for every attempt of this thread in one message.
  #sendProgress(): void {
    this.#progressTimer = undefined;
    this.#progressSentAt = performance.now();
    const tuples: ProgressTuple[] = [];
    for (const entry of this.#progressed) {
      if (entry.unsentProgress !== undefined) tuples.push([entry.id, entry.version, entry.unsentProgress]);
      entry.unsentProgress = undefined;
    }
    this.#progressed.clear();
    if (tuples.length > 0) this.#options.send({ type: 'progress', progress: JSON.stringify(tuples) });
  }

  #reportProgress(entry: Running, value: unknown): void {
    const json = progressJsonOf(value);
    if (entry.settled) return;
    entry.unsentProgress = json;
    this.#progressed.add(entry);
    if (this.#progressTimer) return;
    const wait = Math.max(0, this.#progressSentAt + this.#options.progressIntervalMs - performance.now());
    this.#progressTimer = setTimeout(() => this.#sendProgress(), wait);
  }

  #recordFollowUp(entry: Running, kind: unknown, payload: unknown, options: unknown): number {
    if (entry.settled) {
      throw new Error(`ctx.enqueue was called after job ${entry.id}'s attempt ended: nothing was enqueued`);
    }
    const list = (entry.followUps ??= []);
    const followUp = followUpOf(kind, payload, options, list.length);
    if (list.length >= MAX_FOLLOW_UPS) {
      throw new RangeError(`ctx.enqueue: an attempt may enqueue at most ${MAX_FOLLOW_UPS} follow-up jobs`);
    }
    const { tracing } = this.#options;
    list.push(
      tracing && entry.span
        ? { ...followUp, traceContext: tracing.send(entry.span, followUp.kind, followUp.queue) }
        : followUp,
    );
    return list.length - 1;
  }

  #settle(entry: Running, result: AttemptResult): void {
    if (entry.settled) return;
    entry.settled = true;
    this.#running.delete(entry.id);
    this.#progressed.delete(entry);
    if (entry.span) this.#options.tracing?.end(entry.span, result);
    this.#options.settled(result, this.#logs.take(entry.id, entry.version));
  }

  #signalOf(entry: Running): AbortSignal {
    if (!entry.controller) {
      entry.controller = new AbortController();
      if (entry.abortReason) entry.controller.abort(entry.abortReason);
    }
    return entry.controller.signal;
  }

  async #invoke(entry: Running, job: JobTuple, kind: LoadedKind | undefined): Promise<void> {
    const { id, version } = entry;
    try {
      if (!kind) throw new Error(`no handler for kind "${job[2]}" in this thread`);
      const payload = JSON.parse(job[4]) as JsonValue;
      // A payload written around the API (plain SQL) may not match: it never will, so the job
      // fails for good without running the handler.
      const mismatch = kind.check?.(payload);
      if (mismatch !== undefined) {
        const error = `the payload does not match the schema of kind "${job[2]}": ${mismatch}`;
        this.#settle(entry, [id, version, AttemptStatus.failedPermanently, error]);
        return;
      }
      const signalOf = (): AbortSignal => this.#signalOf(entry);
      let log: JobLog | undefined;
      // Read for the first time after the attempt settled (a stray timer): its calls are ignored.
      const logOf = (): JobLog =>
        (log ??= entry.settled ? IGNORED_LOG : this.#logs.logOf(id, version, job[3]));
      const ctx: HandlerContext = {
        jobId: id,
        kind: job[2],
        attempt: job[3],
        version,
        get signal() {
          return signalOf();
        },
        dependencies: dependenciesOf(job[5]),
        progress: (value) => this.#reportProgress(entry, value),
        // Made on first use: most handlers never log.
        get log() {
          return logOf();
        },
        enqueue: (followUpKind, followUpPayload, options) =>
          this.#recordFollowUp(entry, followUpKind, followUpPayload, options),
        step: (name, fn) => this.#durableOf(entry).step(name, fn) as Promise<never>,
        sleep: (name, ms) => this.#durableOf(entry).sleep(name, ms),
        sleepUntil: (name, date) => this.#durableOf(entry).sleepUntil(name, date),
        waitForSignal: (name, options) =>
          this.#durableOf(entry).waitForSignal(name, options) as Promise<never>,
      };
      const value: unknown = await kind.handler(payload, ctx);
      this.#settle(entry, this.#unstorableStepFailure(entry) ?? this.#resultOf(entry, value));
    } catch (error) {
      if (entry.span && !entry.settled) this.#options.tracing?.recordError(entry.span, error);
      this.#settle(
        entry,
        this.#unstorableStepFailure(entry) ?? [
          id,
          version,
          AttemptStatus.threw,
          errorMessage(error),
          entry.unsentProgress,
        ],
      );
    }
  }

  /** The failure for good of an attempt one of whose steps returned what cannot be stored, if one did. */
  #unstorableStepFailure(entry: Running): AttemptResult | undefined {
    const unstorable = entry.durable?.unstorableStep;
    if (unstorable === undefined) return undefined;
    return [entry.id, entry.version, AttemptStatus.failedPermanently, unstorable, entry.unsentProgress];
  }

  /** The result of a handler that returned `value`: a success, or why the value cannot be stored. */
  #resultOf(entry: Running, value: unknown): AttemptResult {
    const { id, version, unsentProgress } = entry;
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
      const message = `the handler's result cannot be stored: ${reason}`;
      return [id, version, AttemptStatus.threw, message, unsentProgress];
    }
    const bytes = resultJson === null ? undefined : utf8BytesOver(resultJson, MAX_RESULT_BYTES);
    if (bytes !== undefined) {
      const error = `the handler's result is ${bytes} bytes of JSON, more than the limit of ${MAX_RESULT_BYTES} bytes (1 MiB): store large data elsewhere and return a reference to it`;
      return [id, version, AttemptStatus.failedPermanently, error, unsentProgress];
    }
    const problem = resultJson === null ? undefined : findUnstorableJsonText(resultJson);
    if (problem) {
      const error = `the handler's result cannot be stored: ${problem.reason}`;
      return [id, version, AttemptStatus.threw, error, unsentProgress];
    }
    // The common case stays a short tuple on the wire.
    if (unsentProgress === undefined && entry.followUps === undefined) {
      return [id, version, AttemptStatus.succeeded, resultJson];
    }
    return [
      id,
      version,
      AttemptStatus.succeeded,
      resultJson,
      unsentProgress ?? null,
      entry.followUps ?? null,
    ];
  }
}

const NO_DEPENDENCIES: Readonly<Record<number, JobDependency>> = Object.freeze({});

/** The `ctx.log` of an attempt that had settled before the handler first read it. */
const IGNORED_LOG: JobLog = Object.freeze({
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
});

/** `ctx.dependencies` from a job tuple's `dependenciesJson`, frozen. */
function dependenciesOf(json: string | null | undefined): Readonly<Record<number, JobDependency>> {
  if (json === undefined || json === null) return NO_DEPENDENCIES;
  return Object.freeze(JSON.parse(json) as Record<number, JobDependency>);
}

import type { ExecutionClass, JobLogLevel } from '@nudge/core';
import type { ClaimedJob, StepRecordInput, SuspendWait } from '@nudge/store';
import type { AttemptStatus } from './attempt-status.js';
import type { FollowUpWire } from './follow-up.js';
import type { KindInfo } from '../handlers/handler.js';

/** Data every worker thread starts with. */
export interface ThreadData {
  /** `file:` URL of the user's handler module. */
  readonly handlersUrl: string;
  /** The class of jobs this thread runs; `describe` only loads the module and reports its kinds. */
  readonly role: ExecutionClass | 'describe';
  /** How much to lower this thread's scheduling priority (`nice`), from 0 (not) to 19. */
  readonly niceIncrement: number;
  /** Shortest time between two progress messages of this thread, in ms (and between two log messages). */
  readonly progressIntervalMs: number;
  /** Most `ctx.log` lines an attempt sends (a job stores no more); later ones are only counted. */
  readonly logLinesPerJob: number;
  /** How this thread traces its attempts; absent when the engine does not trace. */
  readonly tracing?: ThreadTracing;
}

/** Tracing in a worker thread (see `EngineTracing`). */
export interface ThreadTracing {
  /** `file:` URL of a module the thread imports before the handler module (it registers a tracer provider). */
  readonly setupUrl?: string;
}

/**
 * A job on the wire: `[id, version, kind, attempt, payloadJson, dependenciesJson?, stepsJson?]`
 * (`dependenciesJson` only for a job with dependencies, `null` when only `stepsJson` follows;
 * `stepsJson` only for a job with steps or signals: see `ClaimedJob`). A traced engine sends
 * every tuple whole, with the job's `queue` and `traceContext` (`null` for none) after them: an
 * untraced one ships neither. Batches travel as one JSON string: copying a string between
 * threads costs far less than cloning many small objects.
 */
export type JobTuple = [
  id: number,
  version: number,
  kind: string,
  attempt: number,
  payloadJson: string,
  dependenciesJson?: string | null,
  stepsJson?: string | null,
  queue?: string,
  traceContext?: string | null,
];

/**
 * The {@link JobTuple} of a claimed job; `traced` adds its queue and trace context.
 * @param traced - whether the engine traces attempts @defaultValue false
 */
export function jobTuple(job: ClaimedJob, traced = false): JobTuple {
  if (traced) {
    return [
      job.id,
      job.version,
      job.kind,
      job.attempt,
      job.payloadJson,
      job.dependenciesJson ?? null,
      job.stepsJson ?? null,
      job.queue,
      job.traceContext ?? null,
    ];
  }
  if (job.stepsJson !== undefined) {
    return [
      job.id,
      job.version,
      job.kind,
      job.attempt,
      job.payloadJson,
      job.dependenciesJson ?? null,
      job.stepsJson,
    ];
  }
  return job.dependenciesJson === undefined
    ? [job.id, job.version, job.kind, job.attempt, job.payloadJson]
    : [job.id, job.version, job.kind, job.attempt, job.payloadJson, job.dependenciesJson];
}

/** Starts attempts: one message carries every job handed to this thread by one claim. */
export interface RunMessage {
  readonly type: 'run';
  /** JSON text of a {@link JobTuple} array. */
  readonly jobs: string;
  /** Until when their leases count as fresh: see {@link LeaseFresh}. */
  readonly freshUntil: LeaseFresh;
}

/**
 * Until when an attempt's lease counts as fresh, by `monotonicMs()` (one clock for every thread
 * of the process): a heartbeat interval after the engine last knew it held (its claim's answer,
 * a step write's, a confirmation's). A step that would start later first asks the engine to
 * confirm the lease ({@link LeaseCheckMessage}): the process may have been stopped or starved
 * since, and another attempt may own the job.
 */
export type LeaseFresh = number;

/** A Piscina task: the job, and until when its lease counts as fresh; `null` is the warm-up. */
export type PiscinaTask = readonly [job: JobTuple, freshUntil: LeaseFresh];

/** An attempt's lease on the wire: `[id, version]`. */
export type LeaseTuple = readonly [id: number, version: number];

/**
 * Fires `ctx.signal` of attempts (cooperative). An attempt not running yet on the thread (the
 * abort overtook its start) gets its signal aborted when it starts.
 */
export interface AbortMessage {
  readonly type: 'abort';
  readonly leases: readonly LeaseTuple[];
  readonly reason: string;
}

/**
 * The answer to a {@link StepMessage}: `written` false when the lease was lost; `error` when the
 * write failed (the database could not be reached). Piscina workers get it on their pool's
 * broadcast channel, with the aborts; the other workers ignore a request that is not theirs.
 */
export interface StepWrittenMessage {
  readonly type: 'step-written';
  readonly request: string;
  readonly written: boolean;
  readonly error?: string;
  /** When `written`: until when the attempt's lease counts as fresh now. */
  readonly freshUntil?: LeaseFresh;
}

/** What the engine sends a thread. */
export type ToThread = RunMessage | AbortMessage | StepWrittenMessage;

/** What a Piscina pool broadcasts to its workers. */
export type BroadcastToThreads = AbortMessage | StepWrittenMessage;

/** How a suspended attempt waits, on the wire: a {@link SuspendWait} with `until` as ISO text. */
export type SuspendWire =
  | { readonly name: string; readonly type: 'sleep'; readonly delayMs: number }
  | { readonly name: string; readonly type: 'sleep'; readonly until: string }
  | { readonly name: string; readonly type: 'signal'; readonly timeoutMs?: number };

/** The {@link SuspendWire} of a wait. */
export function suspendWire(name: string, wait: SuspendWait): SuspendWire {
  if (wait.type === 'signal')
    return wait.timeoutMs === undefined ? { name, type: 'signal' } : { name, ...wait };
  return 'until' in wait ? { name, type: 'sleep', until: wait.until.toISOString() } : { name, ...wait };
}

/** The wait of a {@link SuspendWire}. */
export function suspendWaitOf(wire: SuspendWire): SuspendWait {
  if (wire.type === 'signal')
    return wire.timeoutMs === undefined ? { type: 'signal' } : { type: 'signal', timeoutMs: wire.timeoutMs };
  return 'until' in wire
    ? { type: 'sleep', until: new Date(wire.until) }
    : { type: 'sleep', delayMs: wire.delayMs };
}

/**
 * The end of one attempt, as a thread reports it (statuses are {@link AttemptStatus}):
 * `[id, version, succeeded, resultJson, progressJson, followUps]` for a success (`resultJson` is
 * the returned value as JSON text, `null` for `undefined`; `followUps` the jobs it recorded with
 * `ctx.enqueue`), `[id, version, threw, error, progressJson]` for a handler that threw (a result,
 * not a crash), or `[id, version, failedPermanently, error, progressJson]` for a failure that no
 * retry can fix (a result or a step result over `MAX_RESULT_BYTES`, a payload that does not match the kind's
 * schema), or `[id, version, suspended, wait, progressJson]` for an attempt that sleeps or waits
 * for a signal. `progressJson` is the last `ctx.progress` value not yet sent in a progress message.
 * Trailing elements may be missing or `null`.
 */
export type AttemptResult =
  | readonly [
      id: number,
      version: number,
      status: typeof AttemptStatus.succeeded,
      resultJson: string | null,
      progressJson?: string | null,
      followUps?: readonly FollowUpWire[] | null,
    ]
  | readonly [
      id: number,
      version: number,
      status: typeof AttemptStatus.threw | typeof AttemptStatus.failedPermanently,
      error: string,
      progressJson?: string | null,
    ]
  | readonly [
      id: number,
      version: number,
      status: typeof AttemptStatus.suspended,
      wait: SuspendWire,
      progressJson?: string | null,
    ];

/** The latest progress of a running attempt: `[id, version, progressJson]`. */
export type ProgressTuple = readonly [id: number, version: number, progressJson: string];

/** Encodes jobs for a {@link RunMessage}; `traced` as {@link jobTuple} takes it. */
export function encodeJobs(jobs: readonly ClaimedJob[], traced = false): string {
  const tuples: JobTuple[] = new Array<JobTuple>(jobs.length);
  for (let i = 0; i < jobs.length; i += 1) {
    const job = jobs[i] as ClaimedJob;
    tuples[i] = jobTuple(job, traced);
  }
  return JSON.stringify(tuples);
}

/** One `ctx.log` line on the wire: `[level, message, fieldsJson]`, already fitted (`fitJobLogLine`). */
export type LogLineTuple = readonly [level: JobLogLevel, message: string, fieldsJson: string | null];

/**
 * The `ctx.log` lines of one attempt not sent before: `[id, version, attempt, lines, dropped]`,
 * `dropped` counting lines over the thread's cap (`logLinesPerJob` per attempt).
 */
export type LogBatch = readonly [
  id: number,
  version: number,
  attempt: number,
  lines: readonly LogLineTuple[],
  dropped: number,
];

/** What a Piscina task (one `cpu` attempt) resolves with: its result, and its log lines not sent before. */
export type PiscinaTaskResult = readonly [result: AttemptResult, logs: LogBatch | null];

/** The handler module loaded; these are its kinds. */
export interface ReadyMessage {
  readonly type: 'ready';
  readonly kinds: readonly KindInfo[];
  /** The module's `schedules` export, as JSON data (only when the thread describes the module). */
  readonly schedules?: unknown;
}

/** The handler module could not be loaded; the thread exits. */
export interface LoadErrorMessage {
  readonly type: 'load-error';
  readonly message: string;
}

/** Attempts that ended, batched: every result settled since the previous message. */
export interface ResultsMessage {
  readonly type: 'results';
  /** JSON text of an {@link AttemptResult} array. */
  readonly results: string;
}

/** The latest `ctx.progress` of running attempts, batched: at most one per thread per interval. */
export interface ProgressMessage {
  readonly type: 'progress';
  /** JSON text of a {@link ProgressTuple} array. */
  readonly progress: string;
}

/**
 * `ctx.log` lines of running attempts, batched: at most one message per thread per interval,
 * and one when an attempt settles (sent before its result: an outcome never overtakes its lines).
 */
export interface LogsMessage {
  readonly type: 'logs';
  /** JSON text of a {@link LogBatch} array. */
  readonly logs: string;
}

/** The attempt whose code is about to end the thread (it called `process.exit`). */
export interface CulpritMessage {
  readonly type: 'culprit';
  readonly id: number;
  readonly version: number;
  readonly error: string;
  /** The other attempts running on the thread: bystanders, to be given back uncharged. */
  readonly neighbours: readonly LeaseTuple[];
}

/** An error thrown outside its promise by an attempt that had already ended: logged, charged to nobody. */
export interface StrayErrorMessage {
  readonly type: 'stray-error';
  readonly id: number;
  readonly version: number;
  readonly error: string;
}

/**
 * A step row to write for a running attempt (`ctx.step`, or a signal wait that timed out);
 * answered with a {@link StepWrittenMessage} of the same `request` (`id:version:n`, unique
 * among all threads).
 */
export interface StepMessage {
  readonly type: 'step';
  readonly request: string;
  readonly write: StepRecordInput;
}

/**
 * Asks the engine to confirm a running attempt's lease before a step starts (its lease is no
 * longer fresh); answered with a {@link StepWrittenMessage} of the same `request`, `written`
 * true while the lease holds.
 */
export interface LeaseCheckMessage {
  readonly type: 'lease-check';
  readonly request: string;
  readonly id: number;
  readonly version: number;
}

/** What a thread sends the engine. */
export type FromThread =
  | StepMessage
  | LeaseCheckMessage
  | ReadyMessage
  | LoadErrorMessage
  | ResultsMessage
  | ProgressMessage
  | LogsMessage
  | CulpritMessage
  | StrayErrorMessage;

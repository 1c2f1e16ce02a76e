import type { ExecutionClass } from '@nudge/core';
import type { ClaimedJob } from '@nudge/store';
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
  /** Shortest time between two progress messages of this thread, in ms. */
  readonly progressIntervalMs: number;
}

/**
 * A job on the wire: `[id, version, kind, attempt, payloadJson, dependenciesJson?]`
 * (`dependenciesJson` only for a job with dependencies: see `ClaimedJob`). Batches travel as one
 * JSON string: copying a string between threads costs far less than cloning many small objects.
 */
export type JobTuple = [
  id: number,
  version: number,
  kind: string,
  attempt: number,
  payloadJson: string,
  dependenciesJson?: string,
];

/** The {@link JobTuple} of a claimed job. */
export function jobTuple(job: ClaimedJob): JobTuple {
  return job.dependenciesJson === undefined
    ? [job.id, job.version, job.kind, job.attempt, job.payloadJson]
    : [job.id, job.version, job.kind, job.attempt, job.payloadJson, job.dependenciesJson];
}

/** Starts attempts: one message carries every job handed to this thread by one claim. */
export interface RunMessage {
  readonly type: 'run';
  /** JSON text of a {@link JobTuple} array. */
  readonly jobs: string;
}

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

/** What the engine sends a thread. */
export type ToThread = RunMessage | AbortMessage;

/**
 * The end of one attempt, as a thread reports it (statuses are {@link AttemptStatus}):
 * `[id, version, succeeded, resultJson, progressJson, followUps]` for a success (`resultJson` is
 * the returned value as JSON text, `null` for `undefined`; `followUps` the jobs it recorded with
 * `ctx.enqueue`), `[id, version, threw, error, progressJson]` for a handler that threw (a result,
 * not a crash), or `[id, version, failedPermanently, error, progressJson]` for a failure that no
 * retry can fix (a result over `MAX_RESULT_BYTES`, a payload that does not match the kind's
 * schema). `progressJson` is the last `ctx.progress` value not yet sent in a progress message.
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
    ];

/** The latest progress of a running attempt: `[id, version, progressJson]`. */
export type ProgressTuple = readonly [id: number, version: number, progressJson: string];

/** Encodes jobs for a {@link RunMessage}. */
export function encodeJobs(jobs: readonly ClaimedJob[]): string {
  const tuples: JobTuple[] = new Array<JobTuple>(jobs.length);
  for (let i = 0; i < jobs.length; i += 1) {
    const job = jobs[i] as ClaimedJob;
    tuples[i] = jobTuple(job);
  }
  return JSON.stringify(tuples);
}

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

/** What a thread sends the engine. */
export type FromThread =
  ReadyMessage | LoadErrorMessage | ResultsMessage | ProgressMessage | CulpritMessage | StrayErrorMessage;

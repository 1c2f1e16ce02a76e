import type { MessagePort } from 'node:worker_threads';
import type { JsonValue } from '@nudge/core';

/** Asks a worker which kinds the handler module exports. */
export interface DescribeTask {
  readonly type: 'describe';
}

/** Runs one attempt of one job in a worker thread. */
export interface RunTask {
  readonly type: 'run';
  readonly jobId: number;
  readonly kind: string;
  readonly payload: JsonValue;
  readonly attempt: number;
  /** Receives `{ type: 'abort', reason }` when the attempt should stop (fires `ctx.signal`). */
  readonly port: MessagePort;
}

/** A task for the worker pool. */
export type PoolTask = DescribeTask | RunTask;

/** What a worker answers to a {@link DescribeTask}. */
export interface DescribeResult {
  readonly kinds: string[];
}

/**
 * What a worker answers to a {@link RunTask}: a handler that throws is an answer, not a
 * rejection; only a dead thread (crash, out of memory, terminated) rejects the task.
 */
export type RunResult =
  | { readonly ok: true; readonly result: JsonValue | undefined }
  | { readonly ok: false; readonly error: string };

/** Message sent on {@link RunTask.port} to abort the attempt cooperatively. */
export interface AbortMessage {
  readonly type: 'abort';
  readonly reason: string;
}

/** Data every worker thread starts with. */
export interface WorkerData {
  /** `file:` URL of the user's handler module. */
  readonly handlersUrl: string;
}

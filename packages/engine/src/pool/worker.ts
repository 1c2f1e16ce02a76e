// Entry module of every pool thread: loads the user's handlers once, then runs tasks.
import { workerData } from 'node:worker_threads';
import type { JsonValue } from '@nudge/core';
import type { Handler } from './handler.js';
import { loadHandlers } from './load-handlers.js';
import type { AbortMessage, DescribeResult, PoolTask, RunResult, RunTask, WorkerData } from './task.js';

const { handlersUrl } = workerData as WorkerData;
let handlers: Promise<Map<string, Handler>> | undefined;

function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

function toJson(value: unknown): JsonValue | undefined {
  if (value === undefined) return undefined;
  const text = JSON.stringify(value) as string | undefined;
  return text === undefined ? undefined : (JSON.parse(text) as JsonValue);
}

async function run(task: RunTask): Promise<RunResult> {
  const controller = new AbortController();
  task.port.on('message', (message: AbortMessage) => controller.abort(new Error(message.reason)));
  try {
    const handler = (await handlers)?.get(task.kind);
    if (!handler) return { ok: false, error: `no handler for kind "${task.kind}" in this thread` };
    const value: unknown = await handler(task.payload, {
      jobId: task.jobId,
      kind: task.kind,
      attempt: task.attempt,
      signal: controller.signal,
    });
    try {
      return { ok: true, result: toJson(value) };
    } catch (error) {
      return { ok: false, error: `the handler returned a value that is not JSON: ${errorMessage(error)}` };
    }
  } catch (error) {
    return { ok: false, error: errorMessage(error) };
  } finally {
    task.port.close();
  }
}

/** Piscina calls this for every task. */
export default async function runTask(task: PoolTask): Promise<RunResult | DescribeResult> {
  handlers ??= loadHandlers(handlersUrl);
  if (task.type === 'describe') return { kinds: [...(await handlers).keys()].sort() };
  return run(task);
}

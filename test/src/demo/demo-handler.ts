import { demoHandlers } from '@nudge/demo';
import type { HandlerContext, JobDependency } from '@nudge/server/handlers';

/** A demo kind: a key of the demo's handler module. */
export type DemoKind = Extract<keyof typeof demoHandlers, string>;

/**
 * The context of one first attempt, as the worker thread would pass it (no progress,
 * follow-ups or durable waits), with the outcomes of the job's `dependencies` when it has some.
 */
export function handlerContext(
  kind: string,
  dependencies: Readonly<Record<number, JobDependency>> = {},
): HandlerContext {
  return {
    jobId: 1,
    kind,
    attempt: 1,
    version: 1,
    signal: new AbortController().signal,
    dependencies,
    progress: () => undefined,
    log: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
    enqueue: () => {
      throw new Error('the demo handlers enqueue no follow-up');
    },
    // Steps run at once, unrecorded; the demo kinds run here do not sleep or wait.
    step: async (_name, fn) => fn(),
    sleep: () => Promise.reject(new Error('the demo handlers run here do not sleep')),
    sleepUntil: () => Promise.reject(new Error('the demo handlers run here do not sleep')),
    waitForSignal: () => Promise.reject(new Error('the demo handlers run here wait for no signal')),
  };
}

/**
 * Runs the demo's `kind` handler on `payload` in this thread, as a worker thread would once the
 * payload passed the kind's schema (checked by the server, not here), with `dependencies` as
 * `ctx.dependencies`.
 * @throws Error what the handler throws
 */
export async function runDemoHandler(
  kind: DemoKind,
  payload: unknown,
  dependencies: Readonly<Record<number, JobDependency>> = {},
): Promise<unknown> {
  const entry: unknown = demoHandlers[kind];
  if (
    typeof entry !== 'object' ||
    entry === null ||
    !('handler' in entry) ||
    typeof entry.handler !== 'function'
  ) {
    throw new Error(`the demo's ${kind} is not a definition with a handler`);
  }
  const handler = entry.handler as (payload: unknown, ctx: HandlerContext) => unknown;
  return await handler(payload, handlerContext(kind, dependencies));
}

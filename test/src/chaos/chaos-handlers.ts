// The handler module of the chaos instances. Every kind records its executions in the ledger
// (NUDGE_CHAOS_LEDGER) and returns its fencing token, so the checks can tell which attempt wrote.
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { HandlerContext } from '@nudge/server/handlers';
import { recordEnd, recordStart } from './ledger.js';

const LEDGER = process.env.NUDGE_CHAOS_LEDGER ?? '';

type Payload = { ms?: number; untilFile?: string } | undefined;

/** Resolves once `path` exists (checked every 10 ms); rejects when `signal` aborts. */
async function fileExists(path: string, signal: AbortSignal): Promise<void> {
  while (!existsSync(path)) await sleep(10, undefined, { signal });
}

async function recorded(ctx: HandlerContext, body: () => Promise<void>) {
  recordStart(LEDGER, ctx.jobId, ctx.version, ctx.attempt);
  try {
    await body();
  } catch (error) {
    recordEnd(LEDGER, ctx.jobId, ctx.version, false);
    throw error;
  }
  recordEnd(LEDGER, ctx.jobId, ctx.version, true);
  return { version: ctx.version, pid: process.pid };
}

/**
 * Works (sleeps) `ms` (default 0) milliseconds, or until the file `untilFile` exists (a gate the
 * scenario opens at a moment of its choosing, whatever the machine's load), stopping early with
 * an error when aborted.
 */
export const work = {
  execution: 'async',
  // Retries at once: recovery times then measure the lease, the sweep and the claim, no backoff.
  backoff: { baseMs: 10, maxMs: 10 },
  handler: (payload: unknown, ctx: HandlerContext) =>
    recorded(ctx, async () => {
      const { ms = 0, untilFile } = (payload as Payload) ?? {};
      if (untilFile !== undefined) await fileExists(untilFile, ctx.signal);
      else if (ms > 0) await sleep(ms, undefined, { signal: ctx.signal });
    }),
} as const;

/** Ends its own thread every time (`process.exit` in a worker thread ends the thread only). */
export const poisonThread = {
  maxAttempts: 3,
  backoff: { baseMs: 50, maxMs: 200 },
  handler: (_payload: unknown, ctx: HandlerContext) =>
    recorded(ctx, async () => {
      process.exit(3);
    }),
} as const;

/** Kills its whole process every time, as a native crash would. */
export const poisonProcess = {
  maxAttempts: 3,
  backoff: { baseMs: 50, maxMs: 200 },
  handler: (_payload: unknown, ctx: HandlerContext) =>
    recorded(ctx, async () => {
      process.kill(process.pid, 'SIGKILL');
      await sleep(60_000);
    }),
} as const;

/**
 * Fails for good (one attempt) while the file `passFile` does not exist, then works as `work`
 * does: the head of a flow that fails until the scenario fixes its cause and retries the flow.
 */
export const gated = {
  execution: 'async',
  maxAttempts: 1,
  handler: (payload: unknown, ctx: HandlerContext) =>
    recorded(ctx, async () => {
      const { ms = 0, passFile = '' } = (payload as { ms?: number; passFile?: string } | undefined) ?? {};
      if (!existsSync(passFile)) throw new Error(`the gate ${passFile} is closed`);
      if (ms > 0) await sleep(ms, undefined, { signal: ctx.signal });
    }),
} as const;

/** Five durable steps, two sleeps and a signal wait (scenario 19). */
export { durableFlow } from './durable-handlers.js';

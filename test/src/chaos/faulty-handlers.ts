// The handler module of the handler-faults scenario: `work` from the chaos module, plus one kind
// per way a handler can misbehave inside its thread. Each records its start in the ledger, so the
// checks can tell which process and attempt ran it; all fail but the two that return first.
import type { HandlerContext } from '@nudge/server/handlers';
import { recordEnd, recordStart } from './ledger.js';

export { work } from './chaos-handlers.js';

const LEDGER = process.env.NUDGE_CHAOS_LEDGER ?? '';
/** Retries come at once: the scenario waits for outcomes, not for backoff. */
const backoff = { baseMs: 50, maxMs: 100 } as const;
const never = (): Promise<never> => new Promise<never>(() => undefined);

/** Calls `process.exit(7)` inside its (async) thread, beside the `work` jobs running there. */
export const exitThread = {
  execution: 'async',
  maxAttempts: 2,
  backoff,
  handler: async (_payload: unknown, ctx: HandlerContext) => {
    recordStart(LEDGER, ctx.jobId, ctx.version, ctx.attempt);
    // A moment in, so that the thread is busy with neighbours when it ends.
    await new Promise((resolve) => setTimeout(resolve, 50));
    process.exit(7);
  },
} as const;

/** Throws from a timer (an uncaught exception of its thread); its own promise never settles. */
export const throwFromTimer = {
  execution: 'async',
  maxAttempts: 2,
  backoff,
  handler: async (_payload: unknown, ctx: HandlerContext) => {
    recordStart(LEDGER, ctx.jobId, ctx.version, ctx.attempt);
    setTimeout(() => {
      throw new Error('boom from a timer');
    }, 20);
    await never();
  },
} as const;

/** Returns, leaving a timer that throws 20 ms later, once its attempt has settled. */
export const throwAfterReturn = {
  execution: 'async',
  maxAttempts: 1,
  backoff,
  handler: async (_payload: unknown, ctx: HandlerContext) => {
    recordStart(LEDGER, ctx.jobId, ctx.version, ctx.attempt);
    setTimeout(() => {
      throw new Error('boom after returning');
    }, 20);
    recordEnd(LEDGER, ctx.jobId, ctx.version, true);
    return { version: ctx.version, pid: process.pid };
  },
} as const;

/** Allocates until its (cpu) thread runs out of heap (`NUDGE_MAX_OLD_GENERATION_MB`). */
export const outOfMemory = {
  maxAttempts: 1,
  backoff,
  // V8 collects hard before it gives up, which takes seconds on a loaded machine: not a timeout.
  timeoutMs: 60_000,
  handler: (_payload: unknown, ctx: HandlerContext) => {
    recordStart(LEDGER, ctx.jobId, ctx.version, ctx.attempt);
    const hoard: number[][] = [];
    for (;;) hoard.push(new Array<number>(1_000_000).fill(Math.random()));
  },
} as const;

/** Spins in `while (true)` on its (cpu) thread, past a 500 ms timeout. */
export const spinForever = {
  maxAttempts: 1,
  backoff,
  timeoutMs: 500,
  handler: (_payload: unknown, ctx: HandlerContext) => {
    recordStart(LEDGER, ctx.jobId, ctx.version, ctx.attempt);
    for (;;) {
      // Only terminating the thread stops it.
    }
  },
} as const;

/** An async kind that never settles and ignores its abort signal, past a 1 s timeout. */
export const ignoreAbort = {
  execution: 'async',
  maxAttempts: 1,
  backoff,
  timeoutMs: 1_000,
  handler: async (_payload: unknown, ctx: HandlerContext) => {
    recordStart(LEDGER, ctx.jobId, ctx.version, ctx.attempt);
    await never();
  },
} as const;

/** Returns, leaving a timer that calls `process.exit(9)` 20 ms later, once its attempt has settled. */
export const exitAfterReturn = {
  execution: 'async',
  maxAttempts: 1,
  backoff,
  handler: async (_payload: unknown, ctx: HandlerContext) => {
    recordStart(LEDGER, ctx.jobId, ctx.version, ctx.attempt);
    setTimeout(() => process.exit(9), 20);
    recordEnd(LEDGER, ctx.jobId, ctx.version, true);
    return { version: ctx.version, pid: process.pid };
  },
} as const;

// The durable kind of the chaos instances (scenario 19): five steps with two durable sleeps and a
// signal wait. Each step's function records its run in the step ledger (step-ledger.ts) before
// its work and returns its run's token, so the stored result names the run that finished it;
// each attempt that gets past the wait records what it returned. Attempts are recorded in the
// execution ledger too, and the result carries the fencing token, as every chaos kind does.
import { setTimeout as sleep } from 'node:timers/promises';
import type { HandlerContext } from '@nudge/server/handlers';
import { recordEnd, recordStart } from './ledger.js';
import { recordStepRun, recordWaitReturn } from './step-ledger.js';

const LEDGER = process.env.NUDGE_CHAOS_LEDGER ?? '';

/** A durable flow's timings, in ms. */
export interface DurableFlowPayload {
  /** How long each step's function works. */
  readonly workMs: number;
  /** The sleep after the first step. */
  readonly coolMs: number;
  /** The signal wait's timeout. */
  readonly timeoutMs: number;
  /** The sleep before the last step. */
  readonly settleMs: number;
}

/** The steps of a durable flow, in order. */
export const FLOW_STEPS = ['fetch', 'compute', 'apply', 'notify', 'archive'] as const;

/** The signal a durable flow waits for. */
export const APPROVE = 'approve';

/**
 * fetch, sleep `cool`, compute, wait for `approve` (or its timeout), apply (which keeps what the
 * wait returned), notify, sleep `settle`, archive.
 */
export const durableFlow = {
  execution: 'async',
  // Every kill or stop that catches an attempt charges it: room for many.
  maxAttempts: 25,
  backoff: { baseMs: 10, maxMs: 10 },
  handler: async (payload: unknown, ctx: HandlerContext) => {
    recordStart(LEDGER, ctx.jobId, ctx.version, ctx.attempt);
    const p = payload as DurableFlowPayload;
    const run = (step: string, keep?: unknown) =>
      ctx.step(step, async () => {
        const token = recordStepRun(LEDGER, ctx.jobId, step, ctx.attempt, ctx.version);
        await sleep(p.workMs, undefined, { signal: ctx.signal });
        return keep === undefined ? { token } : { token, keep };
      });
    await run('fetch');
    await ctx.sleep('cool', p.coolMs);
    await run('compute');
    const approval = await ctx.waitForSignal(APPROVE, { timeoutMs: p.timeoutMs });
    recordWaitReturn(LEDGER, ctx.jobId, APPROVE, ctx.attempt, ctx.version, approval);
    const applied = await run('apply', approval);
    await run('notify');
    await ctx.sleep('settle', p.settleMs);
    await run('archive');
    recordEnd(LEDGER, ctx.jobId, ctx.version, true);
    return { version: ctx.version, pid: process.pid, approval: (applied as { keep?: unknown }).keep ?? null };
  },
} as const;

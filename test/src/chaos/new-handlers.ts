// The handler module of the new version in the rolling-deploy scenario: `work`, plus two kinds
// the old version does not know, an async one and a cpu one (a class the old version has no
// threads for). Both record in the ledger and return their fencing token, as `work` does.
import type { HandlerContext } from '@nudge/server/handlers';
import { work } from './chaos-handlers.js';
import { recordEnd, recordStart } from './ledger.js';

export { work };

const LEDGER = process.env.NUDGE_CHAOS_LEDGER ?? '';

/** The new version of `work`: the same sleep of `ms`, under a new kind. */
export const workV2 = { execution: 'async', backoff: work.backoff, handler: work.handler } as const;

/** A cpu kind: sums `n` (default 10,000) numbers and returns the sum. */
export const report = {
  backoff: work.backoff,
  handler: (payload: unknown, ctx: HandlerContext) => {
    recordStart(LEDGER, ctx.jobId, ctx.version, ctx.attempt);
    const n = (payload as { n?: number } | undefined)?.n ?? 10_000;
    let sum = 0;
    for (let i = 0; i < n; i += 1) sum += i;
    recordEnd(LEDGER, ctx.jobId, ctx.version, true);
    return { version: ctx.version, pid: process.pid, sum };
  },
} as const;

/**
 * How an attempt ended, as a thread reports it in the third element of an `AttemptResult`:
 * - `threw`: the handler threw or rejected, or its result cannot be stored (a retry may help);
 * - `succeeded`: the handler returned a storable value;
 * - `failedPermanently`: no retry can help (a payload that does not match the kind's schema, a
 *   result over `MAX_RESULT_BYTES`);
 * - `suspended`: the handler sleeps (`ctx.sleep`, `ctx.sleepUntil`) or waits for a signal
 *   (`ctx.waitForSignal`): the attempt ends uncharged, to run again later.
 *
 * Numbers on the wire, so that the common result stays a short tuple of JSON.
 */
export const AttemptStatus = {
  threw: 0,
  succeeded: 1,
  failedPermanently: 2,
  suspended: 3,
} as const;

/** One of the {@link AttemptStatus} values. */
export type AttemptStatus = (typeof AttemptStatus)[keyof typeof AttemptStatus];

import type { Engine } from '@nudge/engine';

/**
 * The port through which the HTTP layer drives an {@link Engine}: the kinds it can run (to reject unknown
 * kinds up front), the enqueue that may start a job at once on this instance (and applies the
 * kind's defaults and schema), `prepareEnqueue` (the same defaults and schema check, for the
 * batch route, which reports every invalid job by index) and `enqueueMany` (the batch's write and
 * its claim request), cancel and retry, one job or many (which abort a
 * cancelled attempt running on this instance at once), `sendSignal` (the store's, then a claim
 * request), and the one trigger path (`requestClaim`, coalesced,
 * returns at once).
 *
 * An `Engine` fits as is; tests pass a plain object such as
 * `{ kinds: ['echo'], requestClaim: () => calls++, enqueue: (input, enqueuer) => store.enqueue(input, enqueuer),
 * prepareEnqueue: (input) => input, enqueueMany: (inputs, enqueuer) => store.enqueueMany(inputs, enqueuer),
 * cancel: (id) => store.cancelJob(id),
 * retry: (id, steps) => store.retryJob(id, undefined, steps), cancelMany: (filter) => store.cancelJobs(filter),
 * retryMany: (filter) => store.retryJobs(filter), sendSignal: (input) => store.sendSignal(input) }`.
 */
export type EnginePort = Pick<
  Engine,
  | 'kinds'
  | 'requestClaim'
  | 'enqueue'
  | 'enqueueMany'
  | 'prepareEnqueue'
  | 'cancel'
  | 'retry'
  | 'cancelMany'
  | 'retryMany'
  | 'sendSignal'
>;

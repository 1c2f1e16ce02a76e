import type { Enqueuer, ExecutionClass } from '@nudge/core';
import type { EnqueuedJob, EnqueueInput, Store } from '@nudge/store';
import type { AttemptSupervisor } from './attempt-supervisor.js';
import { servesOpen, type QueueServing } from './queue-serving.js';
import type { SlotLedger } from './slot-ledger.js';

/** What {@link selfClaimEnqueue} works with: the engine's parts. */
export interface SelfClaimParts {
  readonly store: Store;
  readonly ledger: SlotLedger;
  readonly supervisor: AttemptSupervisor;
  readonly workerId: string;
  readonly leaseMs: number;
  readonly serving: QueueServing;
  /** The class of each kind the handler module exports. */
  readonly kinds: ReadonlyMap<string, ExecutionClass>;
  /** The kinds of each class: a due job of one of them may have to run first. */
  readonly kindsByClass: ReadonlyMap<ExecutionClass, readonly string[]>;
  /** Whether the engine runs jobs now (started, not stopping). */
  readonly running: () => boolean;
  readonly requestClaim: () => void;
}

/**
 * Enqueues a prepared job through an instance. When the engine runs, knows the kind, serves its
 * queue without a cap and has a slot of the kind's class free, it holds that slot and offers it to
 * the store (`Store.enqueueAndClaim`), which decides how the job is written (`enqueueRoute`): a job
 * due now is inserted already claimed by this instance (unless a due job should run first, or its
 * queue is paused or limited; decided in the same statement) and started right after the commit,
 * without a claim round trip. A delayed job, one with dependencies, a throttled or debounced one,
 * and one whose idempotency key existed come back not claimed by this call: the slot is given back
 * and a claim is requested, as after any other enqueue.
 * @param enqueuer - the API key that enqueues, passed to the store (see `Store.enqueue`)
 * @returns the job as stored (`RUNNING` when this instance took it)
 */
export async function selfClaimEnqueue(
  parts: SelfClaimParts,
  input: EnqueueInput,
  enqueuer?: Enqueuer,
): Promise<EnqueuedJob> {
  const { store, ledger } = parts;
  const execution = parts.kinds.get(input.kind);
  // A job of a capped queue goes through a claim, which counts it against the cap.
  const held =
    parts.running() && execution !== undefined && servesOpen(parts.serving, input.queue)
      ? ledger.reserve(execution, 1)
      : 0;
  if (execution === undefined || held === 0) {
    const job = await store.enqueue(input, enqueuer);
    parts.requestClaim();
    return job;
  }
  let job: EnqueuedJob;
  try {
    job = await store.enqueueAndClaim(
      input,
      { workerId: parts.workerId, leaseMs: parts.leaseMs, kinds: parts.kindsByClass.get(execution) ?? [] },
      enqueuer,
    );
  } catch (error) {
    ledger.unreserve(execution, 1);
    throw error;
  }
  if (!job.created || job.status !== 'RUNNING') {
    ledger.unreserve(execution, 1);
    parts.requestClaim();
    return job;
  }
  const { id, version, kind, queue, attempts } = job;
  // Inserted already claimed: it waited no time at all.
  parts.supervisor.start([
    {
      id,
      version,
      kind,
      queue,
      payloadJson: JSON.stringify(job.payload),
      attempt: attempts,
      waitMs: 0,
      ...(input.traceContext === undefined ? {} : { traceContext: input.traceContext }),
    },
  ]);
  return job;
}

/**
 * Enqueues prepared jobs through an instance, in one store transaction (`Store.enqueueMany`: all
 * or nothing, each job as the store's enqueue plan writes it), then requests one claim. A batch is
 * never claimed by its producer: the claim that follows starts what is due.
 * @param enqueuer - the API key that enqueues, passed to the store (see `Store.enqueue`)
 * @returns each job as stored, in input order
 */
export async function enqueueBatch(
  parts: Pick<SelfClaimParts, 'store' | 'requestClaim'>,
  inputs: readonly EnqueueInput[],
  enqueuer?: Enqueuer,
): Promise<EnqueuedJob[]> {
  const jobs = await parts.store.enqueueMany(inputs, enqueuer);
  parts.requestClaim();
  return jobs;
}

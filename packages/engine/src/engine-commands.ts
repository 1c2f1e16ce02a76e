import type {
  BulkCommandResult,
  CancelJobsFilter,
  JobCommandResult,
  RetryJobsFilter,
  RetrySteps,
  SentSignal,
  SignalInput,
  Store,
} from '@nudge/store';
import type { Logger } from '@nudge/core';
import type { AttemptSupervisor } from './attempt-supervisor.js';
import type { EmitEngineEvent } from './engine-events.js';
import { jobLogFields } from './job-log-fields.js';

/** What the operator commands work with. */
export interface CommandParts {
  readonly store: Store;
  readonly logger: Logger;
  readonly emit: EmitEngineEvent;
  /** This instance's id: a running attempt claimed by it is aborted here, at once. */
  readonly workerId: string;
  readonly supervisor: AttemptSupervisor;
  /** Asks for a claim pass (a retried job is due at once). */
  readonly requestClaim: () => void;
}

/**
 * Cancels a job (see `Store.cancelJob`). A running attempt on this instance is aborted at once
 * (`ctx.signal` fires; the thread is terminated if the handler ignores it past the abort grace);
 * one on another instance is aborted by that instance's next heartbeat.
 */
export async function cancelJob(parts: CommandParts, id: number): Promise<JobCommandResult> {
  const result = await parts.store.cancelJob(id);
  if (result.outcome !== 'changed') return result;
  parts.emit('command:done', { command: 'cancel', id, kind: result.job.kind, queue: result.job.queue });
  // Dependents that run on failure are released by the cancel: claim, as after an outcome.
  parts.requestClaim();
  if (result.previous === 'RUNNING' && result.job.claimedBy === parts.workerId) {
    abortCancelled(parts, [{ id, version: result.job.version }]);
  }
  return result;
}

/**
 * Cancels every job of `filter` (see `Store.cancelJobs`), a page at a time, aborting running
 * attempts as {@link cancelJob} does.
 * @throws NudgeError `INVALID_REQUEST` for an invalid filter, before any job changes
 */
export async function cancelJobs(parts: CommandParts, filter: CancelJobsFilter): Promise<BulkCommandResult> {
  const result = await parts.store.cancelJobs(filter);
  if (result.changed > 0) {
    parts.emit('bulk-command:done', { command: 'cancel', changed: result.changed, groups: result.groups });
    parts.requestClaim();
  }
  abortCancelled(
    parts,
    result.running.filter((job) => job.claimedBy === parts.workerId),
  );
  return result;
}

/**
 * Retries a failed or cancelled job (see `Store.retryJob`) and asks for a claim. Its steps are
 * kept, or cleared in the retry's transaction as `steps` say.
 * @throws NudgeError `INVALID_REQUEST` for both `fromStep` and `resetSteps`; `STEP_NOT_FOUND`
 *   when the job has no step named `fromStep` (nothing changed)
 */
export async function retryJob(
  parts: CommandParts,
  id: number,
  steps?: RetrySteps,
): Promise<JobCommandResult> {
  const result = await parts.store.retryJob(id, undefined, steps);
  if (result.outcome === 'changed') {
    parts.emit('command:done', { command: 'retry', id, kind: result.job.kind, queue: result.job.queue });
    parts.requestClaim();
  }
  return result;
}

/**
 * Retries every failed or cancelled job of `filter` (see `Store.retryJobs`), a page at a time,
 * clearing steps as its `fromStep` or `resetSteps` say, and asks for a claim.
 * @throws NudgeError `INVALID_REQUEST` for an invalid filter, before any job changes
 */
export async function retryJobs(parts: CommandParts, filter: RetryJobsFilter): Promise<BulkCommandResult> {
  const result = await parts.store.retryJobs(filter);
  if (result.changed > 0) {
    parts.emit('bulk-command:done', { command: 'retry', changed: result.changed, groups: result.groups });
    parts.requestClaim();
  }
  return result;
}

/**
 * Sends a signal to a job (see `Store.sendSignal`). A new signal asks for a claim, as an outcome
 * does: a job it released from its wait is `PENDING` and starts on this instance without waiting
 * for the poll (other instances hear of it through `LISTEN`, or their poll). A repeat of a
 * `signalId` changes nothing, and asks for nothing.
 * @throws NudgeError what `Store.sendSignal` throws (`JOB_NOT_FOUND`, `JOB_STATE_CONFLICT`,
 *   `INVALID_REQUEST`, `PAYLOAD_TOO_DEEP`, `PAYLOAD_UNSTORABLE`); nothing is sent
 */
export async function sendSignal(parts: CommandParts, input: SignalInput): Promise<SentSignal> {
  const sent = await parts.store.sendSignal(input);
  if (sent.created) {
    const { jobId, name, signalId } = sent.signal;
    parts.emit('signal:sent', { id: jobId, name, signalId });
    parts.requestClaim();
  }
  return sent;
}

/** Aborts this instance's attempts of jobs just cancelled (`version`: the version after the cancel). */
function abortCancelled(parts: CommandParts, jobs: readonly { id: number; version: number }[]): void {
  if (jobs.length === 0) return;
  // The cancel bumped the version by one: the attempt ran under the one before.
  const leases = jobs.map(({ id, version }) => ({ id, version: version - 1 }));
  const ids = new Set(jobs.map(({ id }) => id));
  for (const aborted of parts.supervisor.loseLeases(leases, ids)) {
    parts.logger.info(jobLogFields(aborted), 'job cancelled: aborting the attempt');
    parts.emit('job:cancelled', { id: aborted.id, version: aborted.version });
  }
}

import type { AttemptResult } from './threads/thread-messages.js';
import { AttemptStatus } from './threads/attempt-status.js';
import type { LostAttempt } from './threads/execution-pool.js';
import { describeThreadFailure } from './threads/describe-thread-failure.js';
import type { CompleteInput, FailInput, SuspendInput } from '@nudge/store';
import { suspendWaitOf } from './threads/thread-messages.js';
import { leaseOf, type Attempt } from './attempt.js';
import type { Outcome } from './outcome-writer.js';
import { toFollowUpInputs } from './threads/follow-up.js';

/** What deciding an outcome needs from the engine. */
export interface OutcomeContext {
  readonly maxOldGenerationSizeMb: number;
  /** Attempt timeout of `kind`, in ms: its declared `timeoutMs`, else the engine's `jobTimeoutMs`. */
  timeoutMs(kind: string): number;
  /** Retry delay in ms after `attempt` of `kind` failed. */
  retryDelayMs(kind: string, attempt: number): number;
}

function failure(
  attempt: Attempt,
  error: string,
  context: OutcomeContext,
  progressJson: string | undefined,
  permanent = false,
): Outcome {
  const { kind, attempt: number } = attempt.job;
  const input: { -readonly [K in keyof FailInput]: FailInput[K] } = {
    ...leaseOf(attempt),
    error,
    retryDelayMs: context.retryDelayMs(kind, number),
  };
  if (permanent) input.permanent = true;
  if (progressJson !== undefined) input.progressJson = progressJson;
  return { type: 'fail', input, job: attempt.job };
}

/**
 * The outcome of an attempt its thread reported: success (with its follow-up jobs), a suspend
 * (a durable sleep or signal wait, uncharged), or a failure with backoff, or a permanent failure (a result over the size limit, a payload that does not
 * match the kind's schema). An attempt whose lease was lost (or whose job was cancelled) writes
 * nothing; one stopped for shutdown that did not succeed is released. Either outcome carries the
 * attempt's last progress: the value the thread had not sent yet, else `latestProgress`.
 */
export function outcomeOfResult(
  attempt: Attempt,
  result: AttemptResult,
  context: OutcomeContext,
  latestProgress?: string,
): Outcome | undefined {
  const reason = attempt.abortReason;
  if (reason === 'lease-lost' || reason === 'cancelled') return undefined;
  const progressJson = result[4] ?? latestProgress;
  if (result[2] === AttemptStatus.suspended) {
    const wire = result[3];
    const input: SuspendInput = {
      ...leaseOf(attempt),
      name: wire.name,
      attempt: attempt.job.attempt,
      wait: suspendWaitOf(wire),
      ...(progressJson === undefined ? {} : { progressJson }),
    };
    return { type: 'suspend', input, job: attempt.job };
  }
  if (result[2] === AttemptStatus.succeeded) {
    const input: { -readonly [K in keyof CompleteInput]: CompleteInput[K] } = {
      id: attempt.job.id,
      version: attempt.job.version,
      resultJson: result[3],
    };
    if (progressJson !== undefined) input.progressJson = progressJson;
    const followUps = result[5];
    if (followUps && followUps.length > 0) input.followUps = toFollowUpInputs(followUps);
    return { type: 'complete', input, job: attempt.job };
  }
  if (reason === 'shutdown') return { type: 'release', input: leaseOf(attempt), job: attempt.job };
  const error =
    reason === 'timeout'
      ? `timed out after ${context.timeoutMs(attempt.job.kind)} ms: ${result[3]}`
      : result[3];
  return failure(attempt, error, context, progressJson, result[2] === AttemptStatus.failedPermanently);
}

/** How a thread ended, for {@link outcomeOfLoss}. */
export interface ThreadEnd {
  /** What the thread died of. */
  readonly cause: unknown;
  /** The engine terminated it (a timeout past the abort grace, or shutdown). */
  readonly terminated: boolean;
  /** Some attempt (on it, or one that had settled) is known to have caused its end. */
  readonly culpritKnown: boolean;
}

/**
 * The outcome of an attempt whose thread ended under it. The attempt that caused the end (it
 * overran its timeout and was terminated, or called `process.exit`) fails with that cause; its
 * neighbours are released without being charged an attempt. When nothing says which attempt
 * caused a crash (out of memory, a native crash), every attempt on the thread fails with the
 * cause, so that a poison job still runs out of attempts.
 */
export function outcomeOfLoss(
  attempt: Attempt,
  lost: LostAttempt,
  end: ThreadEnd,
  context: OutcomeContext,
  latestProgress?: string,
): Outcome | undefined {
  if (attempt.abortReason === 'lease-lost' || attempt.abortReason === 'cancelled') return undefined;
  if (attempt.abortReason === 'shutdown')
    return { type: 'release', input: leaseOf(attempt), job: attempt.job };
  const thread = (reason: 'timeout' | undefined) => ({
    reason,
    jobTimeoutMs: context.timeoutMs(attempt.job.kind),
    maxOldGenerationSizeMb: context.maxOldGenerationSizeMb,
  });
  if (lost.culpritError !== undefined) return failure(attempt, lost.culpritError, context, latestProgress);
  if (attempt.abortReason === 'timeout') {
    return failure(attempt, describeThreadFailure(end.cause, thread('timeout')), context, latestProgress);
  }
  if (end.terminated || end.culpritKnown)
    return { type: 'release', input: leaseOf(attempt), job: attempt.job };
  return failure(attempt, describeThreadFailure(end.cause, thread(undefined)), context, latestProgress);
}

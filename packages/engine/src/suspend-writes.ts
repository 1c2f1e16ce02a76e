import {
  isRowWriteError,
  type JobLease,
  type Store,
  type SuspendInput,
  type SuspendOutcome,
} from '@nudge/store';
import type { Logger } from '@nudge/core';
import type { EmitEngineEvent, JobLabels } from './engine-events.js';

/** What {@link writeSuspends} reports to. */
export interface SuspendWritesParts {
  readonly store: Store;
  readonly emit: EmitEngineEvent;
  readonly logger: Logger;
  /** A suspend left its job `PENDING` (the wake-up time had passed, or the signal had come). */
  readonly onRunnable: () => void;
  /** A suspend scheduled its job, or a wait's deadline, `delayMs` ms from now. */
  readonly onScheduled: (delayMs: number) => void;
}

const UNKNOWN_JOB: JobLabels = { kind: '', queue: '', attempt: 0 };

/** In ms from now, when the job of a written suspend comes due by itself; `undefined` never. */
function dueInMs(input: SuspendInput): number | undefined {
  const { wait } = input;
  if (wait.type === 'signal') return wait.timeoutMs;
  return 'until' in wait ? Math.max(0, wait.until.getTime() - Date.now()) : wait.delayMs;
}

/**
 * Writes suspended attempts (durable sleeps and signal waits), each in its own transaction
 * (`Store.suspend` locks the row before it reads the signals), and reports each written one:
 * `job:suspended`, and a wake for the claim or the promotion when the job is due. A write that
 * fails throws, leaving the rest unwritten for the outcome writer to retry (a repeat of a written
 * one is fenced out by its version).
 * @returns the leases settled (written, or refused by the database for the row's own reason);
 *   one missing was fenced out (its lease lost)
 */
export async function writeSuspends(
  inputs: readonly SuspendInput[],
  labels: ReadonlyMap<number, JobLabels>,
  parts: SuspendWritesParts,
): Promise<JobLease[]> {
  const settled: JobLease[] = [];
  for (const input of inputs) {
    let outcome: SuspendOutcome | undefined;
    try {
      outcome = await parts.store.suspend(input);
    } catch (error) {
      // A row the database refuses for its own reason must not hold back every other outcome:
      // it stays RUNNING, and the sweep gives it another attempt once its lease expires.
      if (!isRowWriteError(error)) throw error;
      parts.emit('job:outcome-refused', { id: input.id, version: input.version, outcome: 'suspend' });
      parts.logger.error(
        { err: error, jobId: input.id, version: input.version },
        'the database refused a suspend',
      );
      settled.push({ id: input.id, version: input.version });
      continue;
    }
    if (outcome === undefined) continue;
    settled.push(outcome);
    const { kind, queue, attempt } = labels.get(input.id) ?? UNKNOWN_JOB;
    parts.emit('job:suspended', { ...outcome, kind, queue, attempt, name: input.name, wait: input.wait });
    if (outcome.status === 'PENDING') parts.onRunnable();
    const due = dueInMs(input);
    if (outcome.status !== 'PENDING' && due !== undefined) parts.onScheduled(due);
  }
  return settled;
}

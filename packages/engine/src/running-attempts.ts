import type { ExecutionClass } from '@nudge/core';
import type { ClaimedJob } from '@nudge/store';
import type { Attempt } from './attempt.js';
import { DeadlineWheel } from './deadline-wheel.js';
import type { QueueSlots } from './queue-slots.js';

/**
 * The attempts this instance runs, one per job id, with their deadlines (one
 * {@link DeadlineWheel} for all) and their count in each queue ({@link QueueSlots}): adding and
 * finishing an attempt keeps the three in step.
 */
export class RunningAttempts {
  readonly #attempts = new Map<number, Attempt>();
  readonly #deadlines: DeadlineWheel;
  readonly #queues: QueueSlots;

  /**
   * @param resolutionMs - how late past its deadline an attempt may be reported, in ms
   * @param queues - the per-queue counts that running attempts take part in
   * @param onDeadline - called once for an attempt still running when its deadline passes
   */
  constructor(resolutionMs: number, queues: QueueSlots, onDeadline: (attempt: Attempt) => void) {
    this.#queues = queues;
    this.#deadlines = new DeadlineWheel(resolutionMs, (id) => {
      const attempt = this.#attempts.get(id);
      if (attempt) onDeadline(attempt);
    });
  }

  /** Attempts running. */
  get size(): number {
    return this.#attempts.size;
  }

  /** The attempt running for job `id`, whatever its version. */
  get(id: number): Attempt | undefined {
    return this.#attempts.get(id);
  }

  /** Every attempt running. */
  values(): Attempt[] {
    return [...this.#attempts.values()];
  }

  /**
   * Records an attempt of `job` handed to its thread at `startedAt`, due by `deadlineAt` (both
   * `performance.now()` times, in ms).
   */
  add(job: ClaimedJob, execution: ExecutionClass, startedAt: number, deadlineAt: number): void {
    this.#attempts.set(job.id, { job, execution, startedAt });
    this.#queues.started(job.queue);
    this.#deadlines.add(job.id, deadlineAt);
  }

  /**
   * Forgets the attempt `(id, version)`, its deadline and its queue count.
   * @returns the attempt, or `undefined` when no attempt of that version runs (it ended already)
   */
  finish(id: number, version: number): Attempt | undefined {
    const attempt = this.#attempts.get(id);
    if (!attempt || attempt.job.version !== version) return undefined;
    this.#attempts.delete(id);
    this.#deadlines.remove(id);
    this.#queues.ended(attempt.job.queue);
    return attempt;
  }

  /** Stops the deadline timer (the attempts stay listed). */
  clearDeadlines(): void {
    this.#deadlines.clear();
  }
}

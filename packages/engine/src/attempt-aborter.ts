import type { ExecutionClass } from '@nudge/core';
import type { AbortReason, Attempt } from './attempt.js';
import type { ExecutionPool } from './threads/execution-pool.js';

const ABORT_MESSAGES: Record<AbortReason, (timeoutMs: number) => string> = {
  timeout: (timeoutMs) => `timed out after ${timeoutMs} ms`,
  'lease-lost': () => 'the lease was lost: another attempt may own this job now',
  cancelled: () => 'the job was cancelled',
  shutdown: () => 'the service is shutting down',
};

/** What an {@link AttemptAborter} works with. */
export interface AttemptAborterParts {
  readonly pools: ReadonlyMap<ExecutionClass, ExecutionPool>;
  /** Time between `ctx.signal` firing and the thread being terminated, in ms. */
  readonly abortGraceMs: number;
  /** Attempt timeout of `kind`, in ms (named in the timeout's message). */
  readonly timeoutMs: (kind: string) => number;
  /** Whether `attempt` still runs (an ended one is not terminated). */
  readonly running: (attempt: Attempt) => boolean;
}

/**
 * Stops attempts in two steps: fires their `ctx.signal` at once (cooperative), then terminates
 * the thread of each one still running `abortGraceMs` later. An attempt is aborted once; the
 * first reason wins.
 */
export class AttemptAborter {
  readonly #parts: AttemptAborterParts;
  readonly #graceTimers = new Set<NodeJS.Timeout>();

  constructor(parts: AttemptAborterParts) {
    this.#parts = parts;
  }

  /** Aborts `attempts` for `reason`; those aborted already are left as they are. */
  abort(attempts: readonly Attempt[], reason: AbortReason): void {
    const fresh = attempts.filter((a) => a.abortReason === undefined);
    if (fresh.length === 0) return;
    for (const attempt of fresh) attempt.abortReason = reason;
    // One message per class and distinct text (the timeout names the kind's own).
    const groups = new Map<string, { pool: ExecutionPool; attempts: Attempt[]; message: string }>();
    for (const attempt of fresh) {
      const pool = this.#parts.pools.get(attempt.execution);
      if (!pool) continue;
      const message = ABORT_MESSAGES[reason](this.#parts.timeoutMs(attempt.job.kind));
      const key = `${attempt.execution}\u0000${message}`;
      const group = groups.get(key);
      if (group) group.attempts.push(attempt);
      else groups.set(key, { pool, attempts: [attempt], message });
    }
    for (const { pool, attempts: list, message } of groups.values()) {
      pool.abort(
        list.map(({ job }) => ({ id: job.id, version: job.version })),
        message,
      );
    }
    const timer = setTimeout(() => {
      this.#graceTimers.delete(timer);
      for (const attempt of fresh) {
        if (!this.#parts.running(attempt)) continue;
        this.#parts.pools.get(attempt.execution)?.terminateThreadOf(attempt.job.id);
      }
    }, this.#parts.abortGraceMs);
    this.#graceTimers.add(timer);
  }

  /** Cancels every pending termination (the pools are being destroyed). */
  clear(): void {
    for (const timer of this.#graceTimers) clearTimeout(timer);
    this.#graceTimers.clear();
  }
}

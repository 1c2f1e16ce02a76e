// The inputs and results of the maintenance passes: the lease sweep, promotion of scheduled
// jobs, unhandled kinds, the schema (see store.ts).

/** Input of {@link Store.sweepExpired}. */
export interface SweepInput {
  /** Retry delay in ms for a job whose lease expired after `attempts` attempts. */
  readonly retryDelayMs: (job: { kind: string; attempts: number }) => number;
  /** Most rows handled in one call. @defaultValue 1000 */
  readonly limit?: number;
  /** Overrides the database clock; tests only. */
  readonly now?: Date;
}

/** What one sweep did. */
export interface SweepResult {
  /** Rows put back to wait for a retry (`SCHEDULED` after a backoff, or `PENDING`). */
  readonly requeued: number;
  /** Rows moved to `FAILED` because their attempts were used up. */
  readonly failed: number;
  /**
   * Expired rows the database refused to recover (see {@link Store.onIsolatedWrite}): left
   * `RUNNING`, their lease pushed back by their retry delay so the next page moves on.
   */
  readonly isolated: number;
  /** Each recovered row's kind and queue, and whether it `failed` (else it was requeued). */
  readonly recovered: readonly RecoveredJob[];
  /**
   * Time until the earliest lease still held expires, in ms from the database's now; `null` when
   * no job is running. 0 when the call handled a full page of `limit` rows (more may have
   * expired: call again), without reading it.
   */
  readonly nextLeaseExpiryInMs: number | null;
}

/** A job the sweep recovered; see {@link SweepResult}. */
export interface RecoveredJob {
  readonly kind: string;
  readonly queue: string;
  /** Moved to `FAILED` (attempts used up) rather than requeued. */
  readonly failed: boolean;
}

/** Input of {@link Store.promoteScheduled}. */
export interface PromoteInput {
  /** Most rows promoted in one call. @defaultValue 1000 */
  readonly limit?: number;
  /** Overrides the database clock; tests only. */
  readonly now?: Date;
}

/** What one promotion did. */
export interface PromoteResult {
  /** `SCHEDULED` rows made `PENDING` because their `run_at` has passed. */
  readonly promoted: number;
  /**
   * Due rows the database refused to promote (see {@link Store.onIsolatedWrite}): left
   * `SCHEDULED`, their `run_at` moved {@link ISOLATED_RETRY_DELAY_MS} later.
   */
  readonly isolated: number;
  /**
   * `WAITING` rows whose signal wait passed its deadline with no signal of that name: made
   * `PENDING`, their wait's step row marked `TIMED_OUT` (the wait returns `null`). Absent when
   * none timed out.
   */
  readonly timedOut?: number;
  /**
   * Time until the next `SCHEDULED` row (or signal wait's deadline) comes due, in ms from the database's now (0 or more), or
   * `null` when none is scheduled.
   */
  readonly nextDueInMs: number | null;
  /** Some `PENDING` job is due now (of any kind or queue): a claim may find work. */
  readonly runnable: boolean;
  /**
   * Time until the earliest lease of a `RUNNING` job expires, in ms from the database's now:
   * negative once it has expired; `null` when no job is running.
   */
  readonly nextLeaseExpiryInMs: number | null;
}

/** Input of {@link Store.failUnhandledKinds}. */
export interface UnhandledKindsInput {
  /** How long a job may be due while no live instance handles its kind, in ms. */
  readonly graceMs: number;
  /** An instance is live when it was seen within this many ms. */
  readonly instanceTtlMs: number;
  /** Most rows failed in one call. @defaultValue 1000 */
  readonly limit?: number;
  /** Overrides the database clock; tests only. */
  readonly now?: Date;
}

/** What {@link Store.failUnhandledKinds} did. */
export interface UnhandledKindsResult {
  /** Jobs moved to `FAILED`. */
  readonly failed: number;
  /** Their kinds, sorted, without repeats. */
  readonly kinds: string[];
}

/** Schema version applied to the database against the newest this code knows. */
export interface SchemaState {
  readonly applied: number;
  readonly latest: number;
}

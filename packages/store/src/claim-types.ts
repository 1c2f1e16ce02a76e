// The inputs and results of claiming, and the new-job notifications (see store.ts).

/** What {@link Store.listenForNewJobs} calls. */
export interface NewJobsHandlers {
  /**
   * Runnable jobs were inserted, or the listener (re)connected and some may have been. On SQLite:
   * another connection committed a change to the file, which may be new jobs.
   */
  readonly onWake: () => void;
  /** The listener is listening: at the start, and again after each reconnection. */
  readonly onReady?: (reconnected: boolean) => void;
  /**
   * The listener stopped listening (its connection dropped; on SQLite, a read of
   * `PRAGMA data_version` failed); wakes may be missed until the next `onReady`. Not called by
   * {@link NewJobsListener.close}.
   */
  readonly onLost?: () => void;
}

/** A running {@link Store.listenForNewJobs} listener. */
export interface NewJobsListener {
  /** Stops listening and closes the listener's connection (SQLite: its timer); no wake follows. */
  close(): Promise<void>;
}

/** Identifies one attempt: the row plus the fencing token the claim returned. */
export interface JobLease {
  readonly id: number;
  readonly version: number;
  /**
   * On a lease `Store.complete` or `Store.fail` returns: `true` when the job has dependents, whose
   * release its outcome may have made runnable in the same transaction (a success, or a final
   * failure under `onDependencyFailure: 'run'`); absent otherwise, and on every other lease. The
   * engine claims again after such an outcome: on SQLite nothing else would wake it (an
   * instance's own commits do not), nor on PostgreSQL without `LISTEN`.
   */
  readonly hasDependents?: true;
}

/** Kinds that share one claim limit, such as the kinds of one execution class. */
export interface ClaimGroup {
  /** Kinds the claimer can run; a job of another kind is never claimed. Empty claims nothing. */
  readonly kinds: readonly string[];
  /** Most rows to claim for this group; 0 claims nothing (and reads nothing). */
  readonly limit: number;
  /**
   * Queues to claim from (besides those of `ClaimInput.queueLimits`). @defaultValue every queue
   */
  readonly queues?: readonly string[];
}

/** Input of {@link Store.claim}. */
export interface ClaimInput {
  /** Written to `claimed_by`; unique per engine instance. */
  readonly workerId: string;
  /** Lease length from the database's now, in ms. */
  readonly leaseMs: number;
  /** One limit per group of kinds; all groups are claimed in one round trip. */
  readonly groups: readonly ClaimGroup[];
  /**
   * Capped queues, each with the most of its rows this claim may take over all groups (what is
   * left of its cap on the claiming instance; 0 takes none). Every group may claim from them, and
   * no group claims from them otherwise. @defaultValue none
   */
  readonly queueLimits?: Readonly<Record<string, number>>;
  /**
   * Called after a claim that saw queues with cluster-wide limits (`PATCH /queues/:name`), which
   * may have due jobs the limits held back. @defaultValue none
   */
  readonly onLimited?: (limited: LimitedClaim) => void;
  /** Overrides the database clock; tests only. */
  readonly now?: Date;
}

/** What a claim says of the limited queues it saw; see {@link ClaimInput.onLimited}. */
export interface LimitedClaim {
  /**
   * The limited queues whose limits held back due jobs of the claimer's kinds while it had room
   * for more (their room was used up, or a key limit left jobs out): claim again when one of
   * their jobs ends. Empty when the limits held nothing back.
   */
  readonly queues: readonly string[];
  /**
   * When a queue's rate window is full: ms until it lets the next job start, by the database
   * clock; claim again then. Absent when no rate window is full.
   */
  readonly retryInMs?: number;
  /**
   * Each rate-limited queue the claim saw, by name: ms until its window lets the next job start
   * (by the database clock, after this claim's own starts), `0` when it has room now. Absent
   * when the claim saw no rate-limited queue.
   */
  readonly rateWindows?: Readonly<Record<string, number>>;
  /** The claim's time by the database clock, in epoch ms (what `rateWindows` counts from). */
  readonly nowMs?: number;
}

/**
 * A job as a claim returns it: what the engine needs to run the attempt and fence its writes,
 * nothing more, so that a large claim stays cheap to read. The payload stays JSON text: the
 * worker thread parses it, not the claiming thread.
 */
export interface ClaimedJob extends JobLease {
  readonly kind: string;
  readonly queue: string;
  /** The payload as JSON text. */
  readonly payloadJson: string;
  /** This attempt's number, from 1 (the row's `attempts` after the claim). */
  readonly attempt: number;
  /**
   * How long the job waited between becoming due (`run_at`: the enqueue time of a job that was
   * not delayed) and this claim, in ms, by the database clock. Absent when the claim did not
   * measure it; `0` for a job inserted already claimed.
   */
  readonly waitMs?: number;
  /**
   * On the first attempt of a job with dependencies: how long it waited on them, in ms, by the
   * database clock, from becoming due (`run_at`) to the finish of its last dependency, which
   * released it (0 when they had finished before it was due). Absent otherwise, and when a
   * dependency was deleted by retention before the claim.
   */
  readonly dependencyWaitMs?: number;
  /** The ids the job depended on (`dependsOn`); absent for a job without dependencies. */
  readonly dependsOn?: readonly number[];
  /**
   * With `dependsOn`: JSON text of an object mapping each dependency's id to `{ status, result }`
   * (a dependency deleted by retention is absent), what the handler reads as `ctx.dependencies`.
   */
  readonly dependenciesJson?: string;
  /**
   * For a job that has step rows or signals (`has_steps`): JSON text of its `ClaimedSteps`, read
   * by the claim's own statement. Absent for every other job.
   */
  readonly stepsJson?: string;
  /**
   * The trace context the job was enqueued in (the `trace_context` column: JSON text of
   * `{ traceparent, tracestate? }`). Absent for a job enqueued outside any trace.
   */
  readonly traceContext?: string;
}

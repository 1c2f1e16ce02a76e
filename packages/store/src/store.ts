import type { Job, JsonValue, JobStatus } from '@nudge/core';

/** Which database a store talks to. */
export type Dialect = 'sqlite' | 'postgres';

/** What a dialect can do; callers branch on these, never on the dialect name. */
export interface StoreCapabilities {
  /** Concurrent claimers skip each other's locked rows (PostgreSQL `FOR UPDATE SKIP LOCKED`). */
  readonly supportsSkipLocked: boolean;
  /** The database can push notifications to listeners (PostgreSQL `LISTEN/NOTIFY`). */
  readonly supportsListen: boolean;
  /** Several processes on several hosts may share the database. */
  readonly supportsManyHosts: boolean;
}

/** A new job. Omitted fields take the database defaults. */
export interface EnqueueInput {
  /** Handler name; a non-empty string. */
  readonly kind: string;
  /** Handler input. @defaultValue `{}` */
  readonly payload?: JsonValue;
  /** Lower runs first. @defaultValue 0 */
  readonly priority?: number;
  /** Earliest start. @defaultValue the database's `now()` at insert */
  readonly runAt?: Date;
  /** Attempts before the job is `FAILED`, at least 1. @defaultValue 5 */
  readonly maxAttempts?: number;
}

/** Identifies one attempt: the row plus the fencing token the claim returned. */
export interface JobLease {
  readonly id: number;
  readonly version: number;
}

/** Input of {@link Store.claim}. */
export interface ClaimInput {
  /** Written to `claimed_by`; unique per engine instance. */
  readonly workerId: string;
  /** Most rows to claim; 1 or more. */
  readonly limit: number;
  /** Lease length from the database's now, in ms. */
  readonly leaseMs: number;
  /** Overrides the database clock; tests only. */
  readonly now?: Date;
}

/** A successful attempt to record. */
export interface CompleteInput extends JobLease {
  /** Stored as the job's `result`; `undefined` stores SQL `NULL`. */
  readonly result: JsonValue | undefined;
}

/** A failed attempt to record. */
export interface FailInput extends JobLease {
  /** Stored as `last_error`. */
  readonly error: string;
  /** Delay before the retry, from the database's now, in ms; ignored when no attempt is left. */
  readonly retryDelayMs: number;
  /** Fail the job now, whatever attempts remain (unknown kind, bad payload). */
  readonly permanent?: boolean;
}

/** A recorded failure and the status it left the job in (`PENDING` for a retry, or `FAILED`). */
export interface FailOutcome extends JobLease {
  readonly status: Extract<JobStatus, 'PENDING' | 'FAILED'>;
}

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
  /** Rows put back to `PENDING` (with backoff). */
  readonly requeued: number;
  /** Rows moved to `FAILED` because their attempts were used up. */
  readonly failed: number;
}

/** Schema version applied to the database against the newest this code knows. */
export interface SchemaState {
  readonly applied: number;
  readonly latest: number;
}

/**
 * The only seam between nudge and its database. Every method uses the database clock unless a
 * `now` is passed (tests only). Writes to a claimed row are conditioned on `(id, version)` and
 * `status = 'RUNNING'`: a caller whose lease was lost changes nothing and gets nothing back.
 *
 * Batch methods take arrays so that callers can coalesce many outcomes into one transaction.
 */
export interface Store {
  readonly dialect: Dialect;
  readonly capabilities: StoreCapabilities;

  /**
   * Applies pending migrations under a lock; safe to call from many processes at once.
   * @returns versions applied by this call
   * @throws NudgeError `SCHEMA_TOO_NEW` when the database has migrations this code does not know
   */
  migrate(): Promise<number[]>;
  /** Current and newest schema versions; `applied` is 0 before the first migration. */
  schemaState(): Promise<SchemaState>;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  /** The database clock. */
  now(): Promise<Date>;

  /** Inserts one `PENDING` job. */
  enqueue(input: EnqueueInput): Promise<Job>;
  /** Inserts many `PENDING` jobs in one transaction, returned in input order. */
  enqueueMany(inputs: readonly EnqueueInput[]): Promise<Job[]>;
  /** One job, or `undefined` for an unknown id. */
  getJob(id: number): Promise<Job | undefined>;
  /** Number of jobs in each status (every status present, zero included). */
  countByStatus(): Promise<Record<JobStatus, number>>;

  /**
   * Claims up to `limit` due `PENDING` jobs in `(priority, run_at, id)` order: sets `RUNNING`,
   * bumps `version` and `attempts`, sets `claimed_by`, `started_at` and the lease.
   * @returns the claimed jobs in claim order
   */
  claim(input: ClaimInput): Promise<Job[]>;
  /** Extends the leases still held by `leaseMs`; @returns the leases that were still held. */
  heartbeat(leases: readonly JobLease[], leaseMs: number, now?: Date): Promise<JobLease[]>;
  /** Records successes; @returns the attempts that were recorded (the others had lost their lease). */
  complete(items: readonly CompleteInput[], now?: Date): Promise<JobLease[]>;
  /** Records failures: a retry with backoff, or `FAILED`; @returns what was recorded. */
  fail(items: readonly FailInput[], now?: Date): Promise<FailOutcome[]>;
  /**
   * Gives running jobs back (graceful shutdown): `PENDING`, due now, `version` bumped, and the
   * interrupted attempt not counted. @returns the leases released
   */
  release(leases: readonly JobLease[], now?: Date): Promise<JobLease[]>;
  /**
   * Recovers `RUNNING` rows whose lease expired: back to `PENDING` after a backoff delay, or to
   * `FAILED` when their attempts are used up; `version` is bumped either way.
   */
  sweepExpired(input: SweepInput): Promise<SweepResult>;

  /** Closes every connection; the store is unusable afterwards. */
  close(): Promise<void>;
}

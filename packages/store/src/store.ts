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
  /** The named queue it waits in; a non-empty string. @defaultValue `'default'` */
  readonly queue?: string;
  /** Lower runs first. @defaultValue 0 */
  readonly priority?: number;
  /**
   * Earliest start. A time after the database's now stores the job as `SCHEDULED`; the scheduler
   * makes it `PENDING` once due. Exclusive with `delayMs`. @defaultValue the database's `now()`
   * at insert
   */
  readonly runAt?: Date;
  /**
   * Earliest start as a delay from the database's clock at insert, in ms, from 0 to
   * `MAX_DELAY_MS` (365 days): `run_at` is computed inside the insert (`now() + delay`), so the
   * producer's clock plays no part. Above 0 the job is stored `SCHEDULED` and never claimed by
   * {@link Store.enqueueAndClaim}. Exclusive with `runAt`. @defaultValue 0
   */
  readonly delayMs?: number;
  /** Attempts before the job is `FAILED`, at least 1. @defaultValue 5 */
  readonly maxAttempts?: number;
  /**
   * Makes the enqueue idempotent: while a job of the same kind with this key is kept, enqueueing
   * it again writes nothing and returns that job (`created: false`), also under concurrent
   * producers. @defaultValue none
   */
  readonly idempotencyKey?: string;
}

/** A job as an enqueue left it, and whether this call wrote it (`false`: its key existed). */
export type EnqueuedJob = Job & { readonly created: boolean };

/** What {@link Store.listJobs} selects. */
export interface ListJobsQuery {
  /** Only these ids (the other filters are ignored). */
  readonly ids?: readonly number[];
  readonly status?: JobStatus;
  readonly kind?: string;
  readonly queue?: string;
  /** Only ids below this one: the last id of the previous page. */
  readonly beforeId?: number;
  /** Most jobs returned. */
  readonly limit: number;
}

/**
 * What a cancel or a retry did: `changed` (the job moved; `previous` is the status it left),
 * `conflict` (its status does not allow the move; `job` is as it is), or `not-found`.
 */
export type JobCommandResult =
  | { readonly outcome: 'changed'; readonly job: Job; readonly previous: JobStatus }
  | { readonly outcome: 'conflict'; readonly job: Job }
  | { readonly outcome: 'not-found' };

/** A named queue as operators see it: paused or not, and its unfinished jobs by status. */
export interface QueueState {
  readonly name: string;
  readonly paused: boolean;
  /** When it was last paused or resumed; `null` if never. */
  readonly updatedAt: Date | null;
  readonly scheduled: number;
  readonly pending: number;
  readonly running: number;
}

/** What {@link Store.listenForNewJobs} calls. */
export interface NewJobsHandlers {
  /** Runnable jobs were inserted, or the listener (re)connected and some may have been. */
  readonly onWake: () => void;
  /** The listener is listening: at the start, and again after each reconnection. */
  readonly onReady?: (reconnected: boolean) => void;
}

/** A running {@link Store.listenForNewJobs} listener. */
export interface NewJobsListener {
  /** Stops listening and closes the connection; no wake follows. */
  close(): Promise<void>;
}

/** Identifies one attempt: the row plus the fencing token the claim returned. */
export interface JobLease {
  readonly id: number;
  readonly version: number;
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
  /** Overrides the database clock; tests only. */
  readonly now?: Date;
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
}

/** Input of {@link Store.enqueueAndClaim}: who would own the row. */
export interface SelfClaimInput {
  /** Written to `claimed_by`. */
  readonly workerId: string;
  /** Lease length from the database's now, in ms. */
  readonly leaseMs: number;
  /**
   * Kinds that compete with the new job for the same slots: when a due `PENDING` job of one of
   * them comes at or before the new job in claim order, the new job is not claimed.
   */
  readonly kinds: readonly string[];
}

/**
 * A job a successful attempt enqueues (`ctx.enqueue`), inserted with the completion and only if
 * the completion is recorded. Omitted fields take the database defaults, as in {@link EnqueueInput}.
 */
export interface FollowUpInput {
  /** Handler name; a non-empty string. */
  readonly kind: string;
  /** The payload as JSON text (not parsed again). @defaultValue `'{}'` */
  readonly payloadJson?: string;
  /** @defaultValue `'default'` */
  readonly queue?: string;
  /** Lower runs first. @defaultValue 0 */
  readonly priority?: number;
  /**
   * Earliest start. With neither `runAt` nor `delayMs` the job is due at once. A time after the
   * database's now stores the job as `SCHEDULED`.
   */
  readonly runAt?: Date;
  /** Earliest start as ms after the database's now at completion; ignored with `runAt`. */
  readonly delayMs?: number;
  /** @defaultValue 5 */
  readonly maxAttempts?: number;
  /** As in {@link EnqueueInput}: an existing job of the same kind and key makes this one a no-op. */
  readonly idempotencyKey?: string;
}

/** A successful attempt to record. */
export interface CompleteInput extends JobLease {
  /** The job's `result` as JSON text, or `null` for SQL `NULL`. */
  readonly resultJson: string | null;
  /** The attempt's last progress as JSON text, written with the result; omitted keeps `progress`. */
  readonly progressJson?: string;
  /**
   * Jobs to insert in the same transaction as the completion, only when it is recorded (the lease
   * still held): a fenced-out completion enqueues nothing.
   */
  readonly followUps?: readonly FollowUpInput[];
}

/** A progress value to record for a running attempt. */
export interface ProgressInput extends JobLease {
  /** The progress as JSON text (see `ctx.progress`). */
  readonly progressJson: string;
}

/** A failed attempt to record. */
export interface FailInput extends JobLease {
  /** Stored as `last_error`. */
  readonly error: string;
  /**
   * Delay before the retry, from the database's now, in ms; ignored when no attempt is left. A
   * delay above 0 leaves the job `SCHEDULED`, 0 makes it `PENDING` at once.
   */
  readonly retryDelayMs: number;
  /** Fail the job now, whatever attempts remain (unknown kind, bad payload). */
  readonly permanent?: boolean;
  /** The attempt's last progress as JSON text, written with the failure; omitted keeps `progress`. */
  readonly progressJson?: string;
}

/** A recorded failure and the status it left the job in (a retry, or `FAILED`). */
export interface FailOutcome extends JobLease {
  readonly status: Extract<JobStatus, 'SCHEDULED' | 'PENDING' | 'FAILED'>;
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
  /** Rows put back to wait for a retry (`SCHEDULED` after a backoff, or `PENDING`). */
  readonly requeued: number;
  /** Rows moved to `FAILED` because their attempts were used up. */
  readonly failed: number;
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
   * Time until the next `SCHEDULED` row comes due, in ms from the database's now (0 or more), or
   * `null` when none is scheduled.
   */
  readonly nextDueInMs: number | null;
}

/** A running service instance, as {@link Store.registerInstance} records it. */
export interface InstanceInput {
  /** Unique per engine; the same string as `claimed_by`. */
  readonly id: string;
  readonly host: string;
  readonly pid: number;
  /** Kinds this instance has handlers for. */
  readonly kinds: readonly string[];
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

  /**
   * Calls `handlers.onWake` whenever runnable jobs were inserted, on a dedicated connection that
   * reconnects after it drops (PostgreSQL `LISTEN`; a store whose `capabilities.supportsListen` is
   * false has no such method). A wake is a hint, never the guarantee: notifications sent while the
   * connection is down are lost, so each (re)connection also wakes once.
   */
  listenForNewJobs?(handlers: NewJobsHandlers): NewJobsListener;

  /**
   * Inserts one job: `PENDING`, or `SCHEDULED` when `runAt` is after the database's now or
   * `delayMs` is above 0.
   * @throws NudgeError `PAYLOAD_TOO_DEEP`, `PAYLOAD_UNSTORABLE`, or `INVALID_REQUEST` (a
   *   `delayMs` out of range or given with `runAt`); nothing is written
   */
  enqueue(input: EnqueueInput): Promise<EnqueuedJob>;
  /**
   * Inserts many jobs in one transaction, returned in input order; a job whose kind and
   * idempotency key exist (or repeat an earlier job of the batch) comes back as that job.
   */
  enqueueMany(inputs: readonly EnqueueInput[]): Promise<EnqueuedJob[]>;
  /**
   * Inserts one job already claimed by `claim.workerId` (`RUNNING`, attempt 1, version 1, leased)
   * when it is due now and no due `PENDING` job of `claim.kinds` comes at or before it in claim
   * order; otherwise inserts it as {@link enqueue} does. Decided inside the one statement, so
   * the claim order holds against concurrent producers and claimers.
   * A job whose kind and idempotency key exist is returned as it is, `created: false`: never
   * claimed by this call, whatever its status.
   * @returns the job as stored: `status` tells whether it was claimed
   */
  enqueueAndClaim(input: EnqueueInput, claim: SelfClaimInput): Promise<EnqueuedJob>;
  /** One job, or `undefined` for an unknown id. */
  getJob(id: number): Promise<Job | undefined>;
  /**
   * Jobs newest first (by id), a page at a time: those of `ids` when given, else those matching
   * `status` and `kind`, with ids below `beforeId` (the keyset cursor: the last id of the previous
   * page). Filters read the primary key backwards, so they are fast for recent or common jobs.
   */
  listJobs(query: ListJobsQuery): Promise<Job[]>;
  /** Number of jobs in each status (every status present, zero included). */
  countByStatus(): Promise<Record<JobStatus, number>>;

  /**
   * Cancels a `SCHEDULED`, `PENDING` or `RUNNING` job: `CANCELLED`, finished now, `version`
   * bumped and lease cleared, so a running attempt's late outcome changes nothing and its
   * heartbeat finds the lease gone. Any other status is a `conflict`.
   */
  cancelJob(id: number, now?: Date): Promise<JobCommandResult>;
  /**
   * Retries a `FAILED` or `CANCELLED` job: `PENDING`, due now, with fresh attempts (0), `version`
   * bumped, result and progress cleared; the attempt-error history is kept. Any other status is
   * a `conflict`.
   */
  retryJob(id: number, now?: Date): Promise<JobCommandResult>;
  /** Pauses (no instance claims its jobs from the next claim on) or resumes a queue. */
  setQueuePaused(name: string, paused: boolean): Promise<QueueState>;
  /**
   * Every queue that has unfinished jobs or was ever paused, by name, with its unfinished jobs
   * counted by status.
   */
  listQueues(): Promise<QueueState[]>;

  /**
   * Claims, for each group, up to its limit of due `PENDING` jobs of its kinds and queues, and of
   * each capped queue of `queueLimits` at most its limit over all groups (never of a paused queue),
   * in `(priority, run_at, id)` order: sets `RUNNING`, bumps `version` and `attempts`, sets
   * `claimed_by`, `started_at` and the lease. Reads only `PENDING` rows (the claim index holds
   * nothing else), and nothing for a group whose limit is 0.
   * @returns the claimed jobs, in no particular order
   */
  claim(input: ClaimInput): Promise<ClaimedJob[]>;
  /** Extends the leases still held by `leaseMs`; @returns the leases that were still held. */
  heartbeat(leases: readonly JobLease[], leaseMs: number, now?: Date): Promise<JobLease[]>;
  /**
   * Records successes, and inserts the follow-up jobs of each recorded one in the same
   * transaction (a follow-up whose kind and idempotency key exist is skipped).
   * @returns the attempts that were recorded (the others had lost their lease, and enqueued nothing)
   * @throws NudgeError `PAYLOAD_UNSTORABLE` or `PAYLOAD_TOO_DEEP` for a follow-up no dialect stores
   *   alike; nothing of the batch is written
   */
  complete(items: readonly CompleteInput[], now?: Date): Promise<JobLease[]>;
  /**
   * Records failures: a retry after its delay, or `FAILED`. Each appends
   * `{attempt, at, error, instance}` to the job's `errors` (the row's `attempts` and `claimed_by`,
   * `at` from the database clock), keeping the last `MAX_ATTEMPT_ERRORS`.
   * @returns what was recorded
   */
  fail(items: readonly FailInput[], now?: Date): Promise<FailOutcome[]>;
  /**
   * Records the progress of running attempts, in one statement, each only while its lease is
   * held (same version, still `RUNNING`). The value stays after the job finishes.
   * @returns the attempts whose progress was written
   */
  setProgress(items: readonly ProgressInput[]): Promise<JobLease[]>;
  /**
   * Gives running jobs back (graceful shutdown, or a neighbour's thread was terminated):
   * `PENDING`, due now, `version` bumped, and the interrupted attempt not counted.
   * @returns the leases released
   */
  release(leases: readonly JobLease[], now?: Date): Promise<JobLease[]>;
  /**
   * Recovers `RUNNING` rows whose lease expired: back to waiting after a backoff delay, or to
   * `FAILED` when their attempts are used up; `version` is bumped either way. Each appends to
   * `errors` (and sets `last_error` to) `lease expired at <time>: the instance <claimed_by> stopped
   * heartbeating …`. Handles at most
   * `limit` rows: call again while a call returns a full page.
   */
  sweepExpired(input: SweepInput): Promise<SweepResult>;
  /**
   * Makes due `SCHEDULED` rows `PENDING` (at most `limit`, earliest first) and tells when the next
   * one comes due.
   */
  promoteScheduled(input?: PromoteInput): Promise<PromoteResult>;

  /** Records (or replaces) a running instance and the kinds it handles, seen now. */
  registerInstance(input: InstanceInput, now?: Date): Promise<void>;
  /** Marks an instance seen now; @returns `false` when its row is gone (register it again). */
  touchInstance(id: string, now?: Date): Promise<boolean>;
  /** Deletes an instance's row (on shutdown). */
  removeInstance(id: string): Promise<void>;
  /**
   * Fails `PENDING` jobs due for longer than `graceMs` whose kind no live instance handles, with
   * a `last_error` naming the kind, also appended to `errors` as the attempt that could not start
   * (`attempts + 1`, instance `null`). An instance is live when seen within `instanceTtlMs`.
   */
  failUnhandledKinds(input: UnhandledKindsInput): Promise<UnhandledKindsResult>;

  /** Closes every connection; the store is unusable afterwards. */
  close(): Promise<void>;
}

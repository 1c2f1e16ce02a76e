import type { Enqueuer, Job, JobStatus } from '@nudge/core';
import type { DependencyOutcome, DependencyOutcomeOptions } from './read-types.js';
import type { EnqueueInput, EnqueuedJob, SelfClaimInput } from './enqueue-types.js';
import type { NewJobsHandlers, NewJobsListener, JobLease, ClaimInput, ClaimedJob } from './claim-types.js';
import type { CompleteInput, ProgressInput, FailInput, FailOutcome } from './outcome-types.js';
import type {
  SweepInput,
  SweepResult,
  PromoteInput,
  PromoteResult,
  UnhandledKindsInput,
  UnhandledKindsResult,
  SchemaState,
} from './maintenance-types.js';
import type {
  ActivityBucket,
  ActivityQuery,
  ListDependentsQuery,
  ListJobsQuery,
  ListQueuesQuery,
  JobCommandResult,
  QueueLimitsPatch,
  QueueState,
} from './read-types.js';
import type { BulkCommandResult, CancelJobsFilter, RetryJobsFilter } from './bulk-command-types.js';
import type { InstanceInfo, InstanceInput, ListInstancesInput } from './instance-types.js';
import type { StatsInput, StoreStats } from './stats-types.js';
import type { FinishedKind, PruneInput } from './retention-types.js';
import type { ScheduleAdvance, ScheduleRegistration, ScheduleState } from './schedule-types.js';
import type { IsolatedWriteListener } from './isolated-writes.js';
import type {
  JobStepsRead,
  SentSignal,
  SignalInput,
  StepRecordInput,
  SuspendInput,
  SuspendOutcome,
} from './step-types.js';
import type { RetrySteps } from './retry-steps.js';
import type { JobLogAppend, JobLogAppended, JobLogCaps, JobLogPage, JobLogQuery } from './log-types.js';

export type * from './enqueue-types.js';
export type * from './claim-types.js';
export type * from './outcome-types.js';
export type * from './maintenance-types.js';
export type * from './read-types.js';
export * from './bulk-command-types.js';
export type * from './instance-types.js';
export type * from './stats-types.js';
export type * from './retention-types.js';
export type * from './schedule-types.js';
export type * from './step-types.js';
export type * from './log-types.js';
export type { RetrySteps } from './retry-steps.js';
export {
  ISOLATED_RETRY_DELAY_MS,
  ISOLATED_WRITE_OPERATIONS,
  isRowWriteError,
  type IsolatedWrite,
  type IsolatedWriteListener,
  type IsolatedWriteOperation,
} from './isolated-writes.js';

/** Which database a store talks to. */
export type Dialect = 'sqlite' | 'postgres';

/** What a dialect can do; callers branch on these, never on the dialect name. */
export interface StoreCapabilities {
  /** Concurrent claimers skip each other's locked rows (PostgreSQL `FOR UPDATE SKIP LOCKED`). */
  readonly supportsSkipLocked: boolean;
  /**
   * The store can tell listeners that other connections wrote jobs ({@link Store.listenForNewJobs}):
   * PostgreSQL through `LISTEN/NOTIFY`, SQLite by watching `PRAGMA data_version`.
   */
  readonly supportsListen: boolean;
  /** Several processes on several hosts may share the database. */
  readonly supportsManyHosts: boolean;
}

/**
 * The only seam between nudge and its database. Every method uses the database clock unless a
 * `now` is passed (tests only). Writes to a claimed row are conditioned on `(id, version)` and
 * `status = 'RUNNING'`: a caller whose lease was lost changes nothing and gets nothing back.
 *
 * Batch methods take arrays so that callers can coalesce many outcomes into one transaction.
 *
 * No bad row blocks the others: a batch write (outcomes, heartbeats, progress, the sweep, the
 * promotion, bulk commands, retention, unhandled kinds) that the database refuses for one row's
 * own reason (a constraint, a trigger's raise, a trigger cascade's depth, a repeated
 * serialization failure) is split until that row is found; the rest is written, the row is left
 * as it was (see docs/reliability.md for what then becomes of it), its `last_error` says why, and
 * {@link onIsolatedWrite}'s listeners hear of it. A batch method never reports such a row as
 * written.
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
   * Calls `handlers.onWake` whenever runnable jobs were inserted by another connection. PostgreSQL
   * `LISTEN`s on a dedicated connection that reconnects after it drops; SQLite reads
   * `PRAGMA data_version` on the store's own connection every 250 ms, which changes when another
   * connection commits any change to the file. A store whose `capabilities.supportsListen` is
   * false has no such method. A wake is a hint, never the guarantee: notifications sent while the
   * connection is down are lost, so each (re)connection also wakes once.
   */
  listenForNewJobs?(handlers: NewJobsHandlers): NewJobsListener;

  /**
   * Calls `listener` for every row a batch write left out (see the interface's summary), after
   * the store logged it at error level. Listeners run synchronously inside the write's call.
   * @returns the function that removes the listener
   */
  onIsolatedWrite(listener: IsolatedWriteListener): () => void;

  /**
   * Inserts one job: `PENDING`, or `SCHEDULED` when `runAt` is after the database's now or
   * `delayMs` is above 0. `enqueuer`, the API key that enqueues (the HTTP API's), is recorded on
   * the job (`enqueued_by`); a debounce by a key that is not an admin's replaces only that key's
   * job. A repeat of a keyed job must ask for the same `dependsOn` as the existing job.
   * @throws NudgeError `PAYLOAD_TOO_DEEP`, `PAYLOAD_UNSTORABLE`, or `INVALID_REQUEST` (a
   *   `delayMs` out of range or given with `runAt`); `DEBOUNCE_OWNED_BY_OTHER_KEY` (a debounced
   *   job of another key waits under the key); `IDEMPOTENCY_KEY_CONFLICT` (the keyed job exists
   *   with other dependencies); nothing is written
   */
  enqueue(input: EnqueueInput, enqueuer?: Enqueuer): Promise<EnqueuedJob>;
  /**
   * Inserts many jobs in one transaction, returned in input order; a job whose kind and
   * idempotency key exist (or repeat an earlier job of the batch) comes back as that job.
   * A throttled job whose window is open comes back as the window's job, and a debounced job
   * whose key has a job waiting `SCHEDULED` replaces that job's payload and moves its `run_at`
   * to now plus `debounce.delayMs`, coming back as it (`created: false` both). `enqueuer` and
   * the errors as for {@link enqueue}: one refused job refuses the batch.
   */
  enqueueMany(inputs: readonly EnqueueInput[], enqueuer?: Enqueuer): Promise<EnqueuedJob[]>;
  /**
   * Inserts one job already claimed by `claim.workerId` (`RUNNING`, attempt 1, version 1, leased)
   * when it is due now and no due `PENDING` job of `claim.kinds` comes at or before it in claim
   * order; otherwise inserts it as {@link enqueue} does. Decided inside the one statement, so
   * the claim order holds against concurrent producers and claimers.
   * A job whose kind and idempotency key exist is returned as it is, `created: false`: never
   * claimed by this call, whatever its status. A job with `dependsOn`, a throttled or debounced
   * one, or a delayed one is enqueued as by {@link enqueue}, never claimed by this call: the store
   * decides in one place (`enqueueRoute`), so a caller offers the claim without sorting jobs.
   * @returns the job as stored: `status` tells whether it was claimed
   */
  enqueueAndClaim(input: EnqueueInput, claim: SelfClaimInput, enqueuer?: Enqueuer): Promise<EnqueuedJob>;
  /** One job, or `undefined` for an unknown id. */
  getJob(id: number): Promise<Job | undefined>;
  /**
   * Jobs newest first (by id), a page at a time: those of `ids` when given, else those matching
   * `status` and `kind`, with ids below `beforeId` (the keyset cursor: the last id of the previous
   * page). Filters read the primary key backwards, so they are fast for recent or common jobs.
   * With `columns`, `payload` or `result` is left unread (`null`).
   */
  listJobs(query: ListJobsQuery): Promise<Job[]>;
  /**
   * The jobs whose `dependsOn` names job `id` (its dependents), oldest first, at most `limit`,
   * after `afterId` when given (the last id of the previous page); read without `payload` and
   * `result` (`null`). Whatever their status, and whether or not job `id` still exists. A
   * dependent always has a higher id than its dependencies (it names existing jobs, or earlier
   * jobs of its batch), so the read scans the primary key from `id` up: cheap for recent jobs.
   */
  listDependents(query: ListDependentsQuery): Promise<Job[]>;
  /**
   * The status of each job of `ids` that exists, and with `results` its result, keyed by id: what a
   * handler reads as `ctx.dependencies`, and what `GET /jobs/:id` names in `blockedBy`; with
   * `times`, its due and finish times too (what a claim measures the dependency wait with). A job
   * deleted by retention (it had finished) is absent.
   */
  dependencyOutcomes(
    ids: readonly number[],
    options: DependencyOutcomeOptions,
  ): Promise<Map<number, DependencyOutcome>>;
  /** Number of jobs in each status (every status present, zero included). */
  countByStatus(): Promise<Record<JobStatus, number>>;
  /**
   * Jobs that finished (`SUCCEEDED` or `FAILED`) within the last `windowMs`, per bucket of
   * `bucketMs` by finish time, oldest first; buckets without a finished job are left out. Reads
   * only the finished rows of the window.
   */
  activity(query: ActivityQuery): Promise<ActivityBucket[]>;

  /**
   * Cancels a `WAITING`, `SCHEDULED`, `PENDING` or `RUNNING` job: `CANCELLED`, finished now,
   * `version` bumped, lease and `wait_signal` cleared, so a running attempt's late outcome changes
   * nothing and its heartbeat finds the lease gone, and a job that waited for a signal no longer
   * does (a signal sent to it now is refused: it has finished). Its steps and signals are kept,
   * for a retry to resume from. Any other status is a `conflict`.
   */
  cancelJob(id: number, now?: Date): Promise<JobCommandResult>;
  /**
   * Retries a `FAILED` or `CANCELLED` job: `PENDING`, due now, with fresh attempts (0), `version`
   * bumped, result and progress cleared, `wait_signal` cleared; the attempt-error history is
   * kept. Any other status is a `conflict`. A job with dependencies waits for them again:
   * `WAITING` while one has not finished (released as at its enqueue); `blocked` (unchanged) when
   * it cancels on a failed dependency and one ended `FAILED` or `CANCELLED`, or no longer exists.
   *
   * The job's recorded steps are kept unless `steps` says otherwise ({@link RetrySteps}:
   * `fromStep` clears that step and every step recorded after it, `resetSteps` clears them all);
   * the steps are cleared in the retry's own transaction, and only when the retry is applied (a
   * `conflict` or `blocked` retry clears nothing). Signals sent to the job are kept.
   * @param now - the test clock; omit it for the database's
   * @throws NudgeError `INVALID_REQUEST` for `fromStep` with `resetSteps`, or a `fromStep` that is
   *   not 1 to 200 characters, before any row is read; `STEP_NOT_FOUND` when `fromStep` names no
   *   step of a job that would otherwise be retried (checked after `not-found` and `conflict`,
   *   before `blocked`). Nothing is changed then.
   */
  retryJob(id: number, now?: Date, steps?: RetrySteps): Promise<JobCommandResult>;
  /**
   * Retries every job that {@link retryJob} would, of `filter.status` (`FAILED` or `CANCELLED`)
   * and the other filters, that finished before the call started (a job that finishes while it
   * runs, one this call retried included, is left alone). Works in pages of at most
   * {@link BULK_PAGE_SIZE} jobs, each its own statement, walking the finished index so that no
   * job is read twice; stops after `filter.limit` jobs. Each page changes each row exactly as
   * {@link retryJob} does, except that a dependency this call retries too (it matches the filter,
   * whichever page it is in) counts as not finished: its dependent waits for it. A row
   * {@link retryJob} would refuse as `blocked` is left alone and not counted.
   *
   * Steps are cleared as `filter`'s {@link RetrySteps} say, in each page's own statement or
   * transaction, for the jobs it retries: `resetSteps` clears every step of each; `fromStep`
   * clears that step and the ones after it in each job that recorded a step of that name, and
   * keeps all the steps of a job that did not (unlike {@link retryJob}, which refuses it).
   * @throws NudgeError `INVALID_REQUEST` for a status that cannot be retried, a limit that is not
   * a whole number ≥ 1, an invalid date, or `fromStep` with `resetSteps` (or a `fromStep` not 1 to
   * 200 characters), before any row is read
   */
  retryJobs(filter: RetryJobsFilter, now?: Date): Promise<BulkCommandResult>;
  /**
   * Cancels every job that {@link cancelJob} would, in `filter.statuses` (default: every status a
   * job can be cancelled from) and the other filters, among the jobs that existed when the call
   * started. Works in pages of at most {@link BULK_PAGE_SIZE} jobs, each its own statement,
   * walking the unfinished jobs by id so that no job is read twice; stops after `filter.limit`
   * jobs. Each page changes each row exactly as {@link cancelJob} does; a job that finished
   * meanwhile is left alone. `running` lists the jobs taken from `RUNNING`, whose instances abort
   * the attempts.
   * @throws NudgeError `INVALID_REQUEST` for a status that cannot be cancelled, a limit that is
   * not a whole number ≥ 1 or an invalid date, before any row is read
   */
  cancelJobs(filter: CancelJobsFilter, now?: Date): Promise<BulkCommandResult>;
  /** Pauses (no instance claims its jobs from the next claim on) or resumes a queue. */
  setQueuePaused(name: string, paused: boolean): Promise<QueueState>;
  /**
   * Sets or removes a queue's cluster-wide limits (absent fields are kept), obeyed from the next
   * claim on; jobs already running keep running. The caller checks the values (integers from 1).
   */
  setQueueLimits(name: string, patch: QueueLimitsPatch): Promise<QueueState>;
  /**
   * Every queue that has unfinished jobs or a record (it was paused, resumed or given limits), by
   * name, with its unfinished jobs counted by status; with `query`, a page of them (`after`,
   * `limit`), or only those with a record. A page counts the jobs of its own queues only.
   */
  listQueues(query?: ListQueuesQuery): Promise<QueueState[]>;

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
   * Records a finished or failed `ctx.step` (or a signal wait that ended by its deadline on the
   * thread) for a running attempt, in one statement: the step row is inserted, or replaces the
   * row of that name (a step that failed in an earlier attempt), and the job is marked
   * `has_steps`. Times come from the database clock (the start is now minus `durationMs`).
   * @returns true when written; false when the lease was lost (the row is not `RUNNING` with that
   *   version), and nothing was written
   */
  recordStep(input: StepRecordInput, now?: Date): Promise<boolean>;
  /**
   * Ends a running attempt uncharged to sleep or wait for a signal (see {@link SuspendInput}): in
   * one transaction, the step row of the sleep or wait is written unless it exists, and the job
   * is `SCHEDULED` until the wake-up time, or `WAITING` for the signal until its deadline
   * (`wait_signal` set, `run_at` the deadline) — `PENDING` at once when the time has passed or a
   * signal of that name was sent, by then or concurrently (the row is locked before the signals
   * are read; a signal's insert locks it too).
   * @returns the status the job was left in; `undefined` when the lease was lost (nothing written)
   */
  suspend(input: SuspendInput, now?: Date): Promise<SuspendOutcome | undefined>;
  /**
   * Sends a signal to a job: inserts it, and a job `WAITING` for that name becomes `PENDING` in
   * the same transaction (the insert's trigger, which plain SQL inserts fire too). With
   * `signalId`, a repeat returns the signal first sent with it (`created: false`) and changes
   * nothing.
   * @throws NudgeError `JOB_NOT_FOUND` when no job has the id; `JOB_STATE_CONFLICT` when the job
   *   has finished (`SUCCEEDED`, `FAILED` or `CANCELLED`); `INVALID_REQUEST` for a name or
   *   `signalId` outside 1 to 200 characters; `PAYLOAD_TOO_DEEP` or `PAYLOAD_UNSTORABLE` for a
   *   payload no dialect stores alike. Nothing is written.
   */
  sendSignal(input: SignalInput): Promise<SentSignal>;
  /**
   * The steps of job `jobId` in the order they were first recorded (a step's result, a failed
   * step's error, a sleep's wake-up time, a signal wait's deadline), and the signals sent to it,
   * oldest first; both read from one snapshot. A job without steps or signals (`has_steps`
   * false), or no job at all, has empty lists: call it for a job read with `hasSteps` only.
   */
  jobSteps(jobId: number): Promise<JobStepsRead>;
  /**
   * Appends attempts' log lines (`ctx.log`) to their jobs' logs: each append only while its job
   * still has the attempt's version (a lost attempt's late lines are refused; the attempt's own
   * outcome does not move the version, so lines that come just after it still land). Under the
   * lock of the job's counters, lines are kept in order while the job stays within both `caps`;
   * the first line that would pass one, and every later line of the job, is dropped and counted
   * (so caps hold against any number of concurrent appends). PostgreSQL writes a part of the
   * batch in one transaction (the counters locked in one statement, the lines and counters
   * written in one more); SQLite in one `IMMEDIATE` transaction. A job whose append the
   * database refuses for its own reason is left out and reported (see the interface's summary);
   * its job is not touched.
   * @returns what each append that was not refused stored and dropped
   */
  appendJobLogs(appends: readonly JobLogAppend[], caps: JobLogCaps): Promise<JobLogAppended[]>;
  /**
   * A page of job `jobId`'s log: lines with `seq` over `after`, oldest first, at most `limit`,
   * with the job's counters, read from one snapshot.
   * @returns `undefined` when no job has the id
   */
  readJobLogs(query: JobLogQuery): Promise<JobLogPage | undefined>;
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
   * The instance registry by id, each flagged `live` when seen within `liveWithinMs` (database
   * clock); with `liveOnly`, the live ones only.
   */
  listInstances(input: ListInstancesInput): Promise<InstanceInfo[]>;
  /**
   * Deletes the rows of instances not seen within `notSeenForMs` (they died without leaving the
   * registry); live instances call it on their heartbeat. @returns the rows deleted
   */
  pruneInstances(notSeenForMs: number, now?: Date): Promise<number>;
  /**
   * Counts for an operator: jobs by status, by kind and status, by queue and status; how long the
   * oldest due `PENDING` job has waited; the failure rate of the last hour; live instances.
   * `kinds` and `queues` page the per-kind and per-queue counts (by name). Reads the whole jobs
   * table (a `GROUP BY status`, a scan per paged list for its names, one of the last hour's finished
   * rows): fine for a command or a dashboard refresh, not for a tight loop.
   */
  stats(input: StatsInput): Promise<StoreStats>;
  /**
   * Fails `PENDING` jobs due for longer than `graceMs` whose kind no live instance handles, with
   * a `last_error` naming the kind, also appended to `errors` as the attempt that could not start
   * (`attempts + 1`, instance `null`). An instance is live when seen within `instanceTtlMs`.
   */
  failUnhandledKinds(input: UnhandledKindsInput): Promise<UnhandledKindsResult>;

  /**
   * Each terminal status and kind that finished jobs have, sorted by status then kind, in one
   * statement. A loose scan of the `(status, kind, finished_at)` index: one index probe per pair,
   * however many rows each has.
   */
  finishedKinds(): Promise<FinishedKind[]>;
  /**
   * Deletes up to `limit` jobs of `status` and `kind` that finished more than `olderThanMs` ago,
   * oldest first, in one short transaction (on PostgreSQL rows locked by another pruner are
   * skipped). Reads only the rows it deletes, through the `(status, kind, finished_at)` index.
   * A deleted job is gone: `getJob` returns `undefined`, and its idempotency key is free again.
   * A throttled job whose window is still open is kept until the window closes (deleting it
   * would close the window early), and skipped without being counted.
   * @returns the rows deleted; call again while a call returns `limit`
   */
  pruneFinished(input: PruneInput): Promise<number>;

  /**
   * Makes the space of deleted and superseded job rows reusable now rather than whenever the
   * database gets to it: PostgreSQL runs `VACUUM (SKIP_LOCKED) nudge_jobs` (returning at once when
   * another session holds the table's vacuum lock; bounded by 10 minutes rather than the query
   * timeout, since a vacuum cut short reclaims little and blocks no reader or writer);
   * SQLite reuses freed pages on its own, so it does nothing. The pruner calls it after deleting
   * many rows, so the table stays bounded even where autovacuum is off or far behind.
   */
  reclaimSpace(): Promise<void>;

  /**
   * Records declared schedules: a new one starts at the database's now (so its past ticks are
   * not run), a known one keeps its last tick and takes the given expression, zone and kind.
   * @returns the rows of the given names, by name
   */
  registerSchedules(schedules: readonly ScheduleRegistration[], now?: Date): Promise<ScheduleState[]>;
  /** Moves a schedule's last tick forward to `tickAt` (never back) and records the next tick. */
  advanceSchedule(input: ScheduleAdvance): Promise<void>;
  /** Every recorded schedule, by name. */
  listSchedules(): Promise<ScheduleState[]>;

  /**
   * Closes every connection; the store is unusable afterwards. Idempotent: closing again does
   * nothing.
   */
  close(): Promise<void>;
}

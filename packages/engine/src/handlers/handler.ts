import type { BackoffOptions, ExecutionClass, JobOptions, JobStatus, JsonValue } from '@nudge/core';

/** A dependency of the running job as its handler reads it (`ctx.dependencies`). */
export interface JobDependency {
  /** Its status when this attempt was claimed: `SUCCEEDED`, `FAILED` or `CANCELLED`. */
  readonly status: JobStatus;
  /** Its handler's return value when it `SUCCEEDED`, else `null`. */
  readonly result: JsonValue | null;
}

/** What a handler receives besides its payload. */
export interface HandlerContext {
  /** The job's id. */
  readonly jobId: number;
  /** The job's kind. */
  readonly kind: string;
  /** This attempt's number, from 1. */
  readonly attempt: number;
  /**
   * This attempt's fencing token: the row's `version` while this attempt holds the lease. Every
   * later claim of the job has a greater one, so a downstream system that stores the highest
   * token it has seen per job (and refuses writes with a lower one) cannot be written by an
   * attempt whose lease was lost.
   */
  readonly version: number;
  /**
   * Aborted when the attempt must stop: its timeout passed, its lease was lost, or the service is
   * shutting down. A handler that has not settled `abortGraceMs` later gets its thread
   * terminated (and, for an `async` kind, the other jobs on that thread are given back uncharged).
   */
  readonly signal: AbortSignal;
  /**
   * The outcome of each job this one depended on (`dependsOn`), by id: `ctx.dependencies[id]` is
   * `{ status, result }`, read when the attempt was claimed. Every dependency had finished by then
   * (its status is `SUCCEEDED`, or, with `onDependencyFailure: 'run'`, maybe `FAILED` or
   * `CANCELLED`); one deleted by retention in between is absent. An empty object for a job
   * without dependencies.
   */
  readonly dependencies: Readonly<Record<number, JobDependency>>;
  /**
   * Reports how far the attempt got: a number from 0 to 100 (a percentage), or a JSON object of
   * at most `MAX_PROGRESS_BYTES` (4 KiB) of JSON whose optional `percent` is such a number, e.g.
   * `ctx.progress(42)` or `ctx.progress({ percent: 42, step: 'upload' })`. Cheap to call often:
   * the thread sends the latest value at most once per `progressIntervalMs`, and the engine
   * writes it as the job's `progress` at most once per job per interval, while the lease is
   * held; the last value reported before the handler settles is written with its outcome. The
   * value stays after the job finishes. Calls after the attempt settled are ignored.
   * @throws TypeError when the value is neither a finite number nor a plain object of storable JSON
   * @throws RangeError when a number or `percent` is outside 0 to 100, or the JSON is too large
   */
  progress(value: ProgressValue): void;
  /**
   * The job's log: `ctx.log.info('fetched', { rows: 120 })` stores a line for this attempt (level,
   * message, optional fields as a JSON object, the database time), read through
   * `GET /jobs/:id/logs`, `nudge logs <id>` and the dashboard, and writes it to the service's log
   * with the job's id and attempt. Never throws and never waits: lines travel to the engine in
   * batches (at most one message per `progressIntervalMs`) and are stored in batches. A job keeps
   * at most `logLinesPerJob` lines and `logBytesPerJob` bytes across its attempts (the first
   * ones; later lines are dropped and counted); a line over 8 KiB is cut. Lines written before
   * the handler settles are stored before its outcome (waiting at most `logFlushWaitMs`). Calls
   * after the attempt settled are ignored.
   */
  readonly log: JobLog;
  /**
   * Records a follow-up job, enqueued only if this attempt succeeds: it is inserted in the same
   * transaction as the completion, and not at all when the completion is fenced out (lost
   * lease) or the attempt fails (its recorded follow-ups are dropped; a retry records its own).
   * At most `MAX_FOLLOW_UPS` (1,000) per attempt. A follow-up of the handler's own kind with a
   * delay makes a recurring job.
   *
   * The follow-ups of one attempt are one batch, as in `POST /jobs/batch`: `dependsOn` may name
   * job ids or `{ index: n }`, the follow-up an earlier call returned, so a handler fans out parts
   * and a merge that waits for them. Dependencies are read when the completion is written; an id
   * that names no job then counts as a dependency that did not succeed (with the default
   * `onDependencyFailure: 'cancel'` the follow-up is inserted `CANCELLED`).
   * @param payload - the new job's payload @defaultValue `{}`
   * @returns the follow-up's 0-based position among this attempt's follow-ups: its `{ index }`
   * @throws NudgeError `INVALID_REQUEST` when `kind` or an option breaks the job contract (the
   *   message names the field by its JSON Pointer, as `POST /jobs` does), `PAYLOAD_UNSTORABLE` or
   *   `PAYLOAD_TOO_DEEP` for a payload no dialect stores alike
   * @throws RangeError when the attempt already recorded the maximum
   * @throws Error when called after the attempt settled
   */
  enqueue(kind: string, payload?: JsonValue, options?: FollowUpOptions): number;
  /**
   * Runs `fn` as the durable step `name` and stores what it returns as the step's result: on
   * every later attempt of the job (after a crash, a retry, a sleep or a wait), the step returns
   * that stored result without running `fn`. The result is what JSON gives back (a `Date` becomes
   * its ISO text, `undefined` becomes `null`), on the first attempt too, so every attempt sees the
   * same value; it has the limits of a job's result (`MAX_RESULT_BYTES`, 1 MiB): a result that
   * cannot be stored (too large, not JSON, nested too deep) throws `PAYLOAD_UNSTORABLE` or
   * `PAYLOAD_TOO_DEEP`, and the job fails at once, without a retry, however the handler ends. The step is
   * recorded in one database write, fenced by the attempt's lease, before `step` resolves: what
   * runs after it never runs without it. A step that throws is recorded `FAILED` with its error,
   * and the error fails the attempt as any throw does; the next attempt runs the step again. The
   * step in flight when a process dies runs again (at least once); a finished step never does.
   * Once the attempt is aborted (`ctx.signal` fired: its lease lost, the job cancelled, a timeout
   * or a shutdown), `step` runs no function: it throws the abort's reason (`ctx.signal.reason`),
   * since another attempt may own the job.
   * @param name - 1 to 200 characters, unique within the job (a loop can add its index)
   * @throws NudgeError `STEP_NAME_REPEATED` when this attempt already used `name`;
   *   `INVALID_REQUEST` for a bad name; `PAYLOAD_UNSTORABLE` or `PAYLOAD_TOO_DEEP` when the result
   *   cannot be stored; `LEASE_LOST` when the attempt no longer holds the job (nothing recorded)
   * @throws whatever `fn` throws
   */
  step<T>(name: string, fn: () => T | Promise<T>): Promise<T>;
  /**
   * Sleeps `ms` ms, durably: the attempt ends without being charged (its slot is free at once),
   * the job is `SCHEDULED` until the database's now plus `ms`, and then runs again from the top:
   * finished steps return their results, and this sleep, slept, returns at once. The code after
   * an unslept `sleep` never runs in this attempt (`ctx.signal` fires, and the promise never
   * settles). A sleep's wake-up time is recorded on its first call and kept.
   * @param name - 1 to 200 characters, unique within the job
   * @param ms - a whole number of ms from 0 to `MAX_DELAY_MS` (365 days)
   * @throws NudgeError `STEP_NAME_REPEATED`, or `INVALID_REQUEST` for a bad name or `ms`
   */
  sleep(name: string, ms: number): Promise<void>;
  /** {@link sleep} until `date` (a `Date` or ISO 8601 text), by the database clock. */
  sleepUntil(name: string, date: Date | string): Promise<void>;
  /**
   * Waits for the signal `name` sent to this job (`POST /jobs/:id/signals`, `signal()` of
   * `@nudge/client` inside a producer's transaction, `nudge signal`, or a plain SQL insert into
   * `nudge_job_signals`) and returns its payload: the first signal of that name, even one sent
   * before the wait. If none has come, the attempt ends without being charged and the job is
   * `WAITING` (its slot free) until the signal's insert makes it `PENDING`, in the sender's
   * transaction, or until `timeoutMs` pass; it then runs again from the top, and this wait
   * returns the payload, or `null` at the deadline. A wait ends exactly once: after a timeout it
   * returns `null` on every later attempt, whatever signal comes later.
   * @param options.timeoutMs - longest wait in ms, 0 to `MAX_DELAY_MS` (365 days)
   *   @defaultValue none: waits until the signal comes
   * @throws NudgeError `STEP_NAME_REPEATED`, `INVALID_REQUEST` for a bad name or timeout, or
   *   `LEASE_LOST`
   */
  waitForSignal<T extends JsonValue = JsonValue>(
    name: string,
    options?: { readonly timeoutMs?: number },
  ): Promise<T | null>;
}

/** Fields of a log line: a plain object of JSON values (others are noted as unstorable). */
export type JobLogFieldsInput = Readonly<Record<string, unknown>>;

/** `ctx.log`: one method per level, each taking `(message, fields?)`. */
export interface JobLog {
  debug(message: string, fields?: JobLogFieldsInput): void;
  info(message: string, fields?: JobLogFieldsInput): void;
  warn(message: string, fields?: JobLogFieldsInput): void;
  error(message: string, fields?: JobLogFieldsInput): void;
}

/** What `ctx.progress` takes: a percentage, or a small JSON object with an optional `percent`. */
export type ProgressValue =
  number | { readonly percent?: number; readonly [key: string]: JsonValue | undefined };

/**
 * Options of a follow-up job (`ctx.enqueue`): the job options of `@nudge/core`, with the same
 * limits as every other enqueue path; omitted ones take the enqueue defaults. A `delayMs` counts
 * from the database's now when the completion is written; `{ index: n }` in `dependsOn` is the
 * attempt's n-th follow-up (see `HandlerContext.enqueue`).
 */
export type FollowUpOptions = JobOptions;

/**
 * A job handler: takes the job's payload, returns a JSON value stored as the job's `result`.
 * A thrown error fails the attempt and its message becomes `last_error`. Handlers run in worker
 * threads and may run more than once for one job (after a crash): make them idempotent.
 */
export type Handler<Payload = JsonValue> = (payload: Payload, ctx: HandlerContext) => unknown;

/**
 * A JSON Schema (draft 2020-12 keywords as ajv knows them), such as a TypeBox schema: a plain
 * object. It reaches the engine's thread as plain JSON, without TypeBox's symbol keys.
 */
export type JsonSchema = Readonly<Record<string, unknown>>;

/**
 * What a kind declares besides its handler: how it runs, the defaults of its jobs and the shape
 * of its payload. Every field is optional and checked when the module is loaded.
 */
export interface KindDeclaration {
  /** How the kind runs; see {@link ExecutionClass}. @defaultValue `'cpu'` */
  readonly execution?: ExecutionClass;
  /**
   * Attempts of a job of this kind whose producer gives none (`Engine.enqueue`, `POST /jobs`,
   * `POST /jobs/batch`), a whole number from 1 to 1000. A plain-SQL insert gets the column
   * default instead: the database does not know the handler module.
   * @defaultValue the column default, 5
   */
  readonly maxAttempts?: number;
  /**
   * This kind's retry curve, merged over the engine's `backoff`. The engine option
   * `backoffByKind[kind]`, when given, replaces it. @defaultValue the engine's `backoff`
   */
  readonly backoff?: Partial<BackoffOptions>;
  /**
   * Longest an attempt of this kind may run, in ms (1 to 2,147,483,647, the longest timer Node
   * can set), instead of the engine's `jobTimeoutMs`. @defaultValue the engine's `jobTimeoutMs`
   */
  readonly timeoutMs?: number;
  /**
   * V8 young-generation size of the worker threads that run this `cpu` kind, in MB (1 to 1024).
   * A kind that allocates many short-lived objects may run faster with a larger one (fewer
   * scavenges). A kind that sets it gets a Piscina pool of its own, with as many threads as the
   * engine's `threads`; its jobs share the `cpu` slots with every other kind. Refused for an
   * `async` kind. @defaultValue V8's default, in the shared pool
   */
  readonly maxYoungGenerationSizeMb?: number;
  /**
   * The queue of a job of this kind whose producer gives none (a queue name, `isQueueName`). A plain-SQL
   * insert gets the column default. @defaultValue `'default'`
   */
  readonly queue?: string;
  /**
   * JSON Schema of the payload (a TypeBox schema, or any JSON Schema object). `POST /jobs`,
   * `POST /jobs/batch` and `Engine.enqueue` refuse a payload that does not match
   * (`PAYLOAD_INVALID`), and the thread checks it again before each attempt: a job inserted by
   * plain SQL whose payload does not match fails permanently, without running the handler.
   * Values are checked as sent (no coercion, no defaults filled in). @defaultValue none: any JSON
   */
  readonly schema?: JsonSchema;
}

/**
 * A handler with its declared options, as a handler module may export it instead of a bare
 * function: `export const sendEmail = { handler: async (p, ctx) => …, execution: 'async' }`.
 * `defineHandlers` types `Payload` from `schema`.
 */
export interface HandlerDefinition<Payload = JsonValue> extends KindDeclaration {
  readonly handler: Handler<Payload>;
}

/** One export of a handler module: a bare function (a `cpu` kind) or a {@link HandlerDefinition}. */
export type HandlerExport = Handler | HandlerDefinition;

/**
 * A kind as the engine knows it once the handler module is loaded: its execution class and what
 * it declared (absent fields were not declared). `schema` is plain JSON (TypeBox's symbol keys
 * and any function are gone).
 */
export interface KindInfo extends KindDeclaration {
  readonly kind: string;
  readonly execution: ExecutionClass;
}

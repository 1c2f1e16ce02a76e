import type { JsonValue } from '@nudge/core';
import type { JobLease } from './claim-types.js';
import type { JobSignal } from './sql/signal-types.js';

// The inputs and results of durable steps, sleeps and signals (see store.ts).

/** What a step row records: a handler's `ctx.step`, a `ctx.sleep`, or a `ctx.waitForSignal`. */
export type StepType = 'step' | 'sleep' | 'signal';

/**
 * The stored status of a step row. A `step` is `SUCCEEDED` (its result is kept) or `FAILED` (its
 * error is kept; the next attempt runs it again). A `sleep` is `SLEEPING` until its `wake_at`. A
 * `signal` wait is `WAITING` until a signal of its name arrives or its deadline passes, when the
 * promotion marks it `TIMED_OUT` (the wait then returns `null`, whatever arrives later).
 */
export type StepStatus = 'SUCCEEDED' | 'FAILED' | 'SLEEPING' | 'WAITING' | 'TIMED_OUT';

/**
 * A finished or failed `ctx.step`, or a signal wait that timed out on a thread, to record for a
 * running attempt ({@link Store.recordStep}). Fenced by `(id, version)`: a lost attempt writes
 * nothing.
 */
export interface StepRecordInput extends JobLease {
  /** The step's name, 1 to 200 characters, unique within the job. */
  readonly name: string;
  readonly type: 'step' | 'signal';
  readonly status: 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT';
  /** The attempt's number, from 1. */
  readonly attempt: number;
  /** A `SUCCEEDED` step's result as JSON text (`null` for a step that returned `undefined`). */
  readonly resultJson?: string | null;
  /** A `FAILED` step's error message. */
  readonly error?: string;
  /** How long the step ran on its thread, in ms: its start is recorded as the database's now minus this. */
  readonly durationMs: number;
}

/** How a suspended attempt waits ({@link SuspendInput.wait}). */
export type SuspendWait =
  /** `ctx.sleep`: until the database's now plus `delayMs` (ms, 0 to 2^31 - 1). */
  | { readonly type: 'sleep'; readonly delayMs: number }
  /** `ctx.sleepUntil`: until `until`. */
  | { readonly type: 'sleep'; readonly until: Date }
  /** `ctx.waitForSignal`: until a signal named `name` arrives, or `timeoutMs` (ms) pass; none waits forever. */
  | { readonly type: 'signal'; readonly timeoutMs?: number };

/**
 * An attempt that ends uncharged to sleep or to wait for a signal ({@link Store.suspend}): the
 * job's `attempts` goes back by one, its lease is cleared, and it is `SCHEDULED` until the wake-up
 * time or `WAITING` for the signal. The step row named `name` is written unless it exists: a
 * sleep or a wait already recorded keeps its wake-up time or deadline.
 */
export interface SuspendInput extends JobLease {
  /** The sleep's or the wait's step name, 1 to 200 characters. */
  readonly name: string;
  /** The attempt's number, from 1. */
  readonly attempt: number;
  readonly wait: SuspendWait;
  /** The attempt's last progress as JSON text, written with the suspend; omitted keeps `progress`. */
  readonly progressJson?: string;
}

/**
 * What a suspend left the job in: `SCHEDULED` (asleep), `WAITING` (for the signal), or `PENDING`
 * (the wake-up time had passed, or the signal had arrived: it runs again at once).
 */
export interface SuspendOutcome extends JobLease {
  readonly status: 'SCHEDULED' | 'WAITING' | 'PENDING';
}

// A signal's input and stored form live with the signal SQL (`@nudge/store/sql`), which the
// client's transactional `signal` runs too.
export type { JobSignal, SentSignal, SignalInput } from './sql/signal-types.js';

/** A step row as `GET /jobs/:id` shows it. */
export interface JobStep {
  readonly name: string;
  readonly type: StepType;
  readonly status: StepStatus;
  /** The attempt that last wrote it. */
  readonly attempt: number;
  readonly result: JsonValue | null;
  readonly error: string | null;
  readonly startedAt: Date;
  readonly endedAt: Date | null;
  /** A sleep's wake-up time or a signal wait's deadline; `null` for a step or a wait without one. */
  readonly wakeAt: Date | null;
}

/** A job's steps in the order they were first recorded, and the signals sent to it, oldest first. */
export interface JobStepsRead {
  readonly steps: readonly JobStep[];
  readonly signals: readonly JobSignal[];
}

/**
 * The steps and signals a claim ships with a job that has any (`ClaimedJob.stepsJson` is its JSON
 * text), read in the claim's own statement. `steps`, in no particular order: `[name, type,
 * status, result, error, remainingMs]`, where `remainingMs` is how long until a sleep's wake-up time or a wait's
 * deadline by the database clock (0 once passed; `null` for a step, and for a wait without a
 * deadline). `signals`: `[name, payload]`, the first signal of each name.
 */
export interface ClaimedSteps {
  readonly steps: readonly (readonly [
    name: string,
    type: StepType,
    status: StepStatus,
    result: JsonValue | null,
    error: string | null,
    remainingMs: number | null,
  ])[];
  readonly signals: readonly (readonly [name: string, payload: JsonValue])[];
}

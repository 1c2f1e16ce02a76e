import {
  describeValue,
  findUnstorableJsonText,
  hasCharacterCountIn,
  MAX_DELAY_MS,
  MAX_JSON_DEPTH,
  MAX_RESULT_BYTES,
  NudgeError,
  utf8BytesOver,
  type JsonValue,
} from '@nudge/core';
import type { ClaimedSteps, StepRecordInput, StepStatus, StepType, SuspendWait } from '@nudge/store';

/** A step row as the claim shipped it, or as this attempt recorded it. */
interface KnownStep {
  readonly type: StepType;
  readonly status: StepStatus;
  readonly result: JsonValue | null;
  /** Until a sleep's wake-up time or a wait's deadline, in ms at the claim; `null` without one. */
  readonly remainingMs: number | null;
}

/** A step write for the engine: the attempt's lease is added by the caller. */
export type StepWrite = Omit<StepRecordInput, 'id' | 'version'>;

/** What {@link DurableSteps} needs from the attempt it belongs to. */
export interface DurableStepsHost {
  readonly jobId: number;
  readonly attempt: number;
  /** Writes a step row through the engine; resolves `false` when the lease was lost. */
  write(step: StepWrite): Promise<boolean>;
  /**
   * `undefined` while the attempt's lease is fresh (see `LeaseFresh`); else the engine's
   * confirmation of it, `false` when it was lost (the attempt is aborted then, too).
   */
  confirmLease(): Promise<boolean> | undefined;
  /** Ends the attempt uncharged to sleep or wait (see `Store.suspend`); what it returns never settles. */
  suspend(name: string, wait: SuspendWait): Promise<never>;
  /** Whether the attempt has ended (its outcome is sent). */
  ended(): boolean;
  /**
   * Why the attempt was aborted (`ctx.signal`'s reason: its lease lost, the job cancelled, a
   * timeout, a shutdown), or `undefined` while it was not.
   */
  aborted(): Error | undefined;
}

/** Longest step, sleep or signal name, in characters (code points, as the `name` column's check counts). */
export const MAX_STEP_NAME_LENGTH = 200;

function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

/**
 * The durable steps of one attempt (`ctx.step`, `ctx.sleep`, `ctx.sleepUntil`,
 * `ctx.waitForSignal`), from the steps and signals its claim shipped. Made on the first such call
 * only: a handler that uses none costs nothing.
 */
export class DurableSteps {
  readonly #host: DurableStepsHost;
  readonly #steps = new Map<string, KnownStep>();
  readonly #signals = new Map<string, JsonValue>();
  /** Names used by this attempt: a second use throws. */
  readonly #used = new Set<string>();
  #unstorable: string | undefined;

  /** @param stepsJson - the claim's `ClaimedSteps` as JSON text, absent for a job without any */
  constructor(host: DurableStepsHost, stepsJson: string | undefined) {
    this.#host = host;
    if (stepsJson === undefined) return;
    const shipped = JSON.parse(stepsJson) as ClaimedSteps;
    for (const [name, type, status, result, , remainingMs] of shipped.steps) {
      this.#steps.set(name, { type, status, result, remainingMs });
    }
    for (const [name, payload] of shipped.signals) this.#signals.set(name, payload);
  }

  /**
   * Why a step of this attempt returned what cannot be stored (over `MAX_RESULT_BYTES`, not JSON,
   * nested too deep), if one did: no retry can store it, so the attempt fails for good however
   * the handler ends.
   */
  get unstorableStep(): string | undefined {
    return this.#unstorable;
  }

  /** `ctx.step`: see `HandlerContext.step`. */
  async step(name: unknown, fn: unknown): Promise<JsonValue> {
    const key = this.#use('ctx.step', name);
    if (typeof fn !== 'function') {
      throw new NudgeError(
        'INVALID_REQUEST',
        `ctx.step("${key}", fn): fn must be a function (got ${describeValue(fn)})`,
      );
    }
    const known = this.#steps.get(key);
    if (known?.type === 'step' && known.status === 'SUCCEEDED') return known.result;
    // No step starts once the attempt was aborted: another attempt may own the job (or none
    // should run it), so running it here would repeat its side effect only to be fenced out.
    const aborted = this.#host.aborted();
    if (aborted !== undefined) throw aborted;
    // A lease not known held for a heartbeat interval (this process may have been stopped or
    // starved since) is confirmed first: another attempt may own the job and have run this step.
    const confirmation = this.#host.confirmLease();
    if (confirmation !== undefined && !(await confirmation)) {
      throw this.#host.aborted() ?? this.#leaseLost(key);
    }
    const started = performance.now();
    let value: unknown;
    try {
      value = await (fn as () => unknown)();
    } catch (error) {
      const durationMs = performance.now() - started;
      const failed = {
        name: key,
        type: 'step' as const,
        status: 'FAILED' as const,
        error: errorMessage(error),
      };
      // The step's own error is what the attempt fails with, even if recording it failed.
      await this.#host.write({ ...failed, attempt: this.#host.attempt, durationMs }).catch(() => false);
      throw error;
    }
    let resultJson: string | null;
    try {
      resultJson = storableStepResult(key, value);
    } catch (error) {
      this.#unstorable ??= errorMessage(error);
      throw error;
    }
    const durationMs = performance.now() - started;
    await this.#record({ name: key, type: 'step', status: 'SUCCEEDED', resultJson, durationMs });
    const result = resultJson === null ? null : (JSON.parse(resultJson) as JsonValue);
    this.#steps.set(key, { type: 'step', status: 'SUCCEEDED', result, remainingMs: null });
    return result;
  }

  /** `ctx.sleep`: see `HandlerContext.sleep`. */
  async sleep(name: unknown, ms: unknown): Promise<void> {
    const key = this.#use('ctx.sleep', name);
    if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 0 || ms > MAX_DELAY_MS) {
      throw new NudgeError(
        'INVALID_REQUEST',
        `ctx.sleep("${key}", ms): ms must be a whole number of ms from 0 to ${MAX_DELAY_MS} (365 days) (got ${describeValue(ms)})`,
      );
    }
    await this.#sleep(key, { type: 'sleep', delayMs: ms });
  }

  /** `ctx.sleepUntil`: see `HandlerContext.sleepUntil`. */
  async sleepUntil(name: unknown, date: unknown): Promise<void> {
    const key = this.#use('ctx.sleepUntil', name);
    const until = date instanceof Date ? date : typeof date === 'string' ? new Date(date) : undefined;
    if (until === undefined || Number.isNaN(until.getTime()) || until.getUTCFullYear() > 9999) {
      throw new NudgeError(
        'INVALID_REQUEST',
        `ctx.sleepUntil("${key}", date): date must be a valid Date or ISO 8601 text up to year 9999 (got ${describeValue(date)})`,
      );
    }
    await this.#sleep(key, { type: 'sleep', until });
  }

  /** `ctx.waitForSignal`: see `HandlerContext.waitForSignal`. */
  async waitForSignal(name: unknown, options: unknown): Promise<JsonValue> {
    const key = this.#use('ctx.waitForSignal', name);
    const timeoutMs = timeoutOf(key, options);
    const known = this.#steps.get(key);
    if (known?.type === 'signal' && known.status === 'TIMED_OUT') return null;
    if (this.#signals.has(key)) return this.#signals.get(key) ?? null;
    if (known?.type === 'signal' && known.remainingMs === 0) {
      // The deadline passed before this claim and the promotion has not marked it yet: the wait
      // ends here, recorded, so that a signal sent from now on changes no later attempt's answer.
      await this.#record({ name: key, type: 'signal', status: 'TIMED_OUT', durationMs: 0 });
      return null;
    }
    return this.#host.suspend(
      key,
      timeoutMs === undefined ? { type: 'signal' } : { type: 'signal', timeoutMs },
    );
  }

  async #sleep(key: string, wait: SuspendWait): Promise<void> {
    const known = this.#steps.get(key);
    // Slept already: its wake-up time had passed by the database clock when the job was claimed.
    if (known?.type === 'sleep' && known.remainingMs === 0) return;
    await this.#host.suspend(key, wait);
  }

  async #record(step: Omit<StepWrite, 'attempt'>): Promise<void> {
    const written = await this.#host.write({ ...step, attempt: this.#host.attempt });
    if (!written) throw this.#leaseLost(step.name, 'was not recorded');
  }

  #leaseLost(name: string, what = 'did not start'): NudgeError {
    return new NudgeError(
      'LEASE_LOST',
      `job ${this.#host.jobId}'s attempt ${this.#host.attempt} lost its lease: step "${name}" ${what}`,
    );
  }

  #use(method: string, name: unknown): string {
    if (this.#host.ended()) {
      throw new Error(
        `${method} was called after job ${this.#host.jobId}'s attempt ended: nothing was recorded`,
      );
    }
    if (typeof name !== 'string' || !hasCharacterCountIn(name, 1, MAX_STEP_NAME_LENGTH)) {
      throw new NudgeError(
        'INVALID_REQUEST',
        `${method}: the name must be text of 1 to ${MAX_STEP_NAME_LENGTH} characters (got ${describeValue(name)})`,
      );
    }
    if (this.#used.has(name)) {
      throw new NudgeError(
        'STEP_NAME_REPEATED',
        `${method}("${name}"): this attempt already used the name "${name}"; each step, sleep and wait of a job needs its own name`,
      );
    }
    this.#used.add(name);
    return name;
  }
}

/** The `timeoutMs` of `ctx.waitForSignal`'s options, checked. */
function timeoutOf(key: string, options: unknown): number | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== 'object' || options === null) {
    throw new NudgeError(
      'INVALID_REQUEST',
      `ctx.waitForSignal("${key}", options): options must be an object`,
    );
  }
  const { timeoutMs } = options as { timeoutMs?: unknown };
  if (timeoutMs === undefined) return undefined;
  if (
    typeof timeoutMs !== 'number' ||
    !Number.isInteger(timeoutMs) ||
    timeoutMs < 0 ||
    timeoutMs > MAX_DELAY_MS
  ) {
    throw new NudgeError(
      'INVALID_REQUEST',
      `ctx.waitForSignal("${key}"): timeoutMs must be a whole number of ms from 0 to ${MAX_DELAY_MS} (365 days) (got ${describeValue(timeoutMs)})`,
    );
  }
  return timeoutMs;
}

/**
 * A step's return value as JSON text, checked by the limits of a job's result (`null` for
 * `undefined`).
 * @throws NudgeError `PAYLOAD_UNSTORABLE` for a value that is not storable JSON or is over
 *   `MAX_RESULT_BYTES`, `PAYLOAD_TOO_DEEP` for one nested too deep
 */
function storableStepResult(name: string, value: unknown): string | null {
  let text: string | undefined;
  try {
    text = value === undefined ? undefined : JSON.stringify(value);
  } catch (error) {
    if (error instanceof RangeError) {
      throw new NudgeError(
        'PAYLOAD_TOO_DEEP',
        `step "${name}" returned a value nested deeper than the stack allows (the limit is ${MAX_JSON_DEPTH} levels)`,
      );
    }
    throw new NudgeError(
      'PAYLOAD_UNSTORABLE',
      `step "${name}" returned a value that is not JSON: ${errorMessage(error)}`,
    );
  }
  if (text === undefined) return null;
  const bytes = utf8BytesOver(text, MAX_RESULT_BYTES);
  if (bytes !== undefined) {
    throw new NudgeError(
      'PAYLOAD_UNSTORABLE',
      `step "${name}" returned ${bytes} bytes of JSON, more than the limit of ${MAX_RESULT_BYTES} bytes (1 MiB): store large data elsewhere and return a reference to it`,
    );
  }
  const problem = findUnstorableJsonText(text);
  if (problem)
    throw new NudgeError(
      'PAYLOAD_UNSTORABLE',
      `step "${name}" returned a value that cannot be stored: ${problem.reason}`,
    );
  return text;
}

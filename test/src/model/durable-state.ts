// The model test's reference state of durable steps: each job's step rows and signals as the
// store must hold them, the signal waits in force, every finished step's result, and what each
// signal wait returned to its handler; plus the names the commands use.
import type { StepStatus, StepType } from '@nudge/store';

/** Names of `ctx.step` the commands record; disjoint from the sleeps' and the waits'. */
export const STEP_NAMES = ['s1', 's2', 's3'] as const;
/** Names of `ctx.sleep` the commands suspend with. */
export const SLEEP_NAMES = ['nap1', 'nap2'] as const;
/** Names of `ctx.waitForSignal` the commands wait for, and of the signals they send. */
export const SIGNAL_NAMES = ['sigA', 'sigB'] as const;

/** A step row as the store must hold it. Times in epoch ms, by the virtual clock. */
export interface ModelStep {
  readonly type: StepType;
  readonly status: StepStatus;
  /** The attempt that last wrote it. */
  readonly attempt: number;
  /** The result as {@link canonicalJson} text; `null` for SQL `NULL` (a step that returned `undefined`). */
  readonly result: string | null;
  readonly error: string | null;
  readonly startedMs: number;
  readonly endedMs: number | null;
  /** A sleep's wake-up time or a wait's deadline; `null` without one. */
  readonly wakeMs: number | null;
}

/** A signal as the store must hold it. */
export interface ModelSignal {
  readonly name: string;
  /** The payload as {@link canonicalJson} text. */
  readonly payload: string;
  readonly signalId: string | null;
}

/** A job `WAITING` for a signal: its name and deadline (`null`: none). */
export interface ModelWait {
  readonly name: string;
  readonly deadlineMs: number | null;
}

/** The durable part of the model; see the file comment. */
export interface DurableModel {
  /** Each job's step rows, in the order first recorded (a `Map` keeps insertion order). */
  readonly steps: Map<number, Map<string, ModelStep>>;
  /** Each job's signals, oldest first. */
  readonly signals: Map<number, ModelSignal[]>;
  /** The jobs `WAITING` for a signal. */
  readonly waits: Map<number, ModelWait>;
  /** Every step that finished (`SUCCEEDED`), by {@link stepKey}: its result, which never changes. */
  readonly finished: Map<string, string | null>;
  /**
   * What each signal wait returned to a handler, by {@link stepKey}: the same every time (until a
   * retry clears its step).
   */
  readonly resolutions: Map<string, string>;
  /**
   * The jobs that ever had a step row or a signal: `has_steps` stays set on them when a retry
   * clears every step (their claims then ship empty lists).
   */
  readonly touched: Set<number>;
  /** Numbers results and payloads, so that each is told apart. */
  counter: number;
}

/** An empty {@link DurableModel}. */
export function createDurableModel(): DurableModel {
  return {
    steps: new Map(),
    signals: new Map(),
    waits: new Map(),
    finished: new Map(),
    resolutions: new Map(),
    touched: new Set(),
    counter: 0,
  };
}

/** The key of job `id`'s step `name` in {@link DurableModel.finished} and `resolutions`. */
export const stepKey = (id: number, name: string): string => `${id}/${name}`;

/**
 * `value` as JSON text with every object's keys sorted: equal for equal JSON whatever order a
 * dialect gives keys in (PostgreSQL's `jsonb` sorts them its own way).
 */
export function canonicalJson(value: unknown): string {
  const sorted = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sorted);
    if (typeof v !== 'object' || v === null) return v;
    const o = v as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(o)
        .sort()
        .map((key) => [key, sorted(o[key])]),
    );
  };
  return JSON.stringify(sorted(value)) ?? 'null';
}

/** Job `id`'s step rows (created empty on first use). */
export function stepsOf(durable: DurableModel, id: number): Map<string, ModelStep> {
  let steps = durable.steps.get(id);
  if (!steps) {
    steps = new Map();
    durable.steps.set(id, steps);
  }
  return steps;
}

/** Whether job `id` has a step row or a signal: its claims ship them, and it is `has_steps`. */
export function hasDurableState(durable: DurableModel, id: number): boolean {
  return (durable.steps.get(id)?.size ?? 0) > 0 || (durable.signals.get(id)?.length ?? 0) > 0;
}

/** Forgets job `id` (retention deleted it, with its steps and signals). */
export function forgetJob(durable: DurableModel, id: number): void {
  durable.steps.delete(id);
  durable.signals.delete(id);
  durable.waits.delete(id);
  durable.touched.delete(id);
  for (const map of [durable.finished, durable.resolutions]) {
    for (const key of map.keys()) if (key.startsWith(`${id}/`)) map.delete(key);
  }
}

/** A result or a payload of the commands, numbered `n`: a few JSON shapes, one per `n`. */
export function jsonOf(n: number): unknown {
  const shapes = [{ n, tag: 'x', nested: { b: 1, a: [n] } }, [n, 'two', null], `text ${n}`, n, null];
  return shapes[n % shapes.length];
}

/** A step row as a claim shipped it to the attempt's thread. */
export interface ShippedStep {
  readonly type: StepType;
  readonly status: StepStatus;
  /** {@link canonicalJson} text (a SQL `NULL` ships as JSON `null`). */
  readonly result: string;
  readonly error: string | null;
  /** Until a sleep's wake-up time or a wait's deadline at the claim, in ms; `null` without one. */
  readonly remainingMs: number | null;
}

/** What a claim shipped with a job (`ClaimedJob.stepsJson`), parsed. */
export interface ShippedSteps {
  /** In the order shipped. */
  readonly steps: ReadonlyMap<string, ShippedStep>;
  /** The first signal of each name: its payload as {@link canonicalJson} text. */
  readonly signals: ReadonlyMap<string, string>;
}

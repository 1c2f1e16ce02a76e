// The system under test of the model test: three store instances on one database, and the one
// way commands call them (`storeCall`), which reads every job after each call and checks the
// invariants that hold after any call (invariants.ts).
import { NudgeError, type Job } from '@nudge/core';
import type { Store } from '@nudge/store';
import type { TestDatabase } from '../helpers/index.js';
import type { DurableReader } from './durable-reader.js';
import { checkAfterCall } from './invariants.js';
import { checkDurableAfterCall } from './durable-invariants.js';
import { createModel, type Model, type ModelOptions } from './model-state.js';
import { violation } from './violation.js';
import { INSTANCE_COUNT, openInstance, type DatabaseEmptier } from './model-database.js';

/**
 * How far ahead of the database clock the virtual clock starts, in ms. Enqueues read the database
 * clock (they take no `now`): with the virtual clock ahead for the whole run (a run takes seconds),
 * every time the database writes is behind every `now` the commands pass, as in production.
 */
export const CLOCK_LEAD_MS = 5 * 60_000;

/** The store instances of one run, and its model. */
export interface World {
  readonly model: Model;
  /** Instance i claims as worker `w{i+1}`. */
  readonly stores: readonly Store[];
  /** The model's own connection: reads steps, signals and waits, and sends signals with SQL. */
  readonly reader: DurableReader;
  close(): Promise<void>;
}

/** Empties `db`, opens {@link INSTANCE_COUNT} instances on it and a model at the virtual clock's start. */
export async function openWorld(
  db: TestDatabase,
  emptier: DatabaseEmptier,
  reader: DurableReader,
  options: ModelOptions,
): Promise<World> {
  await emptier.empty();
  const stores = Array.from({ length: INSTANCE_COUNT }, () => openInstance(db));
  // Each instance connects now, all at once, rather than on its first command.
  const [now] = await Promise.all(stores.map((store) => store.now()));
  if (!now) throw new Error('no store instance');
  const model = createModel(options, now.getTime() + CLOCK_LEAD_MS);
  return {
    model,
    stores,
    reader,
    close: async () => void (await Promise.all(stores.map((store) => store.close()))),
  };
}

/** Worker id of instance `index`. */
export const workerOf = (index: number): string => `w${index + 1}`;

/** What a store call gave: its value or the `NudgeError` it threw, and the jobs before it. */
export type CallResult<T> =
  | { readonly ok: true; readonly value: T; readonly before: ReadonlyMap<number, Job> }
  | { readonly ok: false; readonly error: NudgeError; readonly before: ReadonlyMap<number, Job> };

/** What a call may do besides the moves every call may make. */
export interface CallOptions {
  /** The call deletes finished jobs (retention). */
  readonly prunes?: boolean;
}

/** {@link CallOptions}, and what the command expects of the call's steps, signals and waits. */
export interface CallExpectations<T> extends CallOptions {
  /**
   * Runs after the call, before the checks: checks the call's answer and applies to the model
   * what the call must have done to steps, signals and signal waits (from what the model knew
   * before it, not from the answer), given the jobs read after it.
   */
  readonly expect?: (result: CallResult<T>, after: ReadonlyMap<number, Job>) => void;
}

async function readJobs(world: World, label: string): Promise<Map<number, Job>> {
  const [store] = world.stores;
  if (!store) throw new Error('no store instance');
  let jobs: Job[];
  try {
    jobs = await store.listJobs({ limit: 100_000 });
  } catch (error) {
    violation(world.model, `reading the jobs after ${label} threw ${describeError(error)}`);
  }
  return new Map(jobs.map((job) => [job.id, job]));
}

/** An error as messages show it: its class, code when it has one, and message. */
export function describeError(error: unknown): string {
  if (error instanceof NudgeError) return `NudgeError ${error.code}: ${error.message}`;
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const shown = typeof code === 'string' || typeof code === 'number' ? ` (${code})` : '';
    return `${error.constructor.name}${shown}: ${error.message}`;
  }
  return String(error);
}

/**
 * Calls instance `index`'s store with `call`, then reads every job, step, signal and wait, runs
 * the command's `expect`, and checks the invariants of any call against the state before it
 * (invariants.ts, durable-invariants.ts). A store call either returns or throws a `NudgeError`;
 * anything else it throws (a driver's error) is a violation.
 */
export async function storeCall<T>(
  world: World,
  index: number,
  label: string,
  call: (store: Store) => Promise<T>,
  options: CallExpectations<T> = {},
): Promise<CallResult<T>> {
  const { model } = world;
  const store = world.stores[index % world.stores.length];
  if (!store) throw new Error('no store instance');
  const before = model.snapshot;
  const waitsBefore = new Map(model.durable.waits);
  const line = `  ${workerOf(index)}.${label}`;
  model.trace.push(line);
  let result: CallResult<T>;
  try {
    result = { ok: true, value: await call(store), before };
  } catch (error) {
    if (!(error instanceof NudgeError)) {
      violation(model, `${workerOf(index)}.${label} threw ${describeError(error)}, not a NudgeError`);
    }
    result = { ok: false, error, before };
  }
  model.trace[model.trace.length - 1] =
    `${line} -> ${result.ok ? summary(result.value) : describeError(result.error)}`;
  const after = await readJobs(world, label);
  const durable = await world.reader
    .read()
    .catch((error: unknown) =>
      violation(model, `reading the steps after ${label} threw ${describeError(error)}`),
    );
  options.expect?.(result, after);
  const where = `${workerOf(index)}.${label}`;
  checkAfterCall(model, before, after, where, options, waitsBefore);
  checkDurableAfterCall(model, { before, after, durable, waitsBefore }, where);
  model.snapshot = after;
  return result;
}

/** A call's value in a few words, for the trace: jobs as `#id STATUS vN`, other values as JSON. */
function summary(value: unknown): string {
  const brief = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(brief);
    if (typeof v !== 'object' || v === null) return v;
    const o = v as Record<string, unknown>;
    if (typeof o.id === 'number' && typeof o.version === 'number') {
      const status = typeof o.status === 'string' ? ` ${o.status}` : '';
      const created = o.created === false ? ' (existing)' : '';
      return `#${o.id}${status} v${o.version}${created}`;
    }
    if (o.job !== undefined) return { ...o, job: brief(o.job) };
    return o.groups === undefined ? o : { ...o, groups: undefined };
  };
  const text = JSON.stringify(brief(value));
  if (text === undefined) return 'ok';
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
}

// What must hold of durable steps after every store call, and of what every claim ships, checked
// against the model's reference state (durable-state.ts):
// - the step rows and signals in the database are exactly the model's (so a step write under a
//   lost lease, a signal from a rolled-back transaction, or a change to a finished step shows);
// - a finished step keeps its result;
// - a job is WAITING for a signal exactly when the model says so, under its name, and not while a
//   signal of that name exists; nothing but a signal, its deadline or a cancel ends such a wait;
// - `has_steps` is set exactly on jobs with step rows or signals;
// - a claim ships a job's step rows, in order, with the time left until each wake-up time or
//   deadline, and the first signal of each name; nothing for a job without any.
import type { Job } from '@nudge/core';
import type { ClaimedJob, ClaimedSteps } from '@nudge/store';
import type { DurableRead, SignalRow, StepRow } from './durable-reader.js';
import {
  canonicalJson,
  forgetJob,
  hasDurableState,
  type ModelStep,
  type ShippedStep,
  type ShippedSteps,
} from './durable-state.js';
import type { Model } from './model-state.js';
import { violation } from './violation.js';

/** The state around one call that {@link checkDurableAfterCall} reads. */
export interface DurableCall {
  readonly before: ReadonlyMap<number, Job>;
  readonly after: ReadonlyMap<number, Job>;
  readonly durable: DurableRead;
  /** The model's signal waits before the call. */
  readonly waitsBefore: ReadonlyMap<number, unknown>;
}

/** Times the database wrote from a `now` the model passed: equal, within float rounding. */
const sameMs = (x: number | null, y: number | null): boolean =>
  x === null || y === null ? x === y : Math.abs(x - y) <= 1;

function describeStep(
  step: Omit<ModelStep, 'startedMs' | 'endedMs' | 'wakeMs'> & Partial<ModelStep>,
): string {
  const times = `started ${step.startedMs}, ended ${step.endedMs}, wake ${step.wakeMs}`;
  return `${step.type} ${step.status} attempt ${step.attempt} result ${step.result} error ${step.error} (${times})`;
}

function sameStep(row: StepRow, step: ModelStep): boolean {
  return (
    row.type === step.type &&
    row.status === step.status &&
    row.attempt === step.attempt &&
    row.result === step.result &&
    row.error === step.error &&
    sameMs(row.startedMs, step.startedMs) &&
    sameMs(row.endedMs, step.endedMs) &&
    sameMs(row.wakeMs, step.wakeMs)
  );
}

function groupBy<T extends { readonly jobId: number }>(rows: readonly T[]): Map<number, T[]> {
  const groups = new Map<number, T[]>();
  for (const row of rows) {
    const list = groups.get(row.jobId);
    if (list) list.push(row);
    else groups.set(row.jobId, [row]);
  }
  return groups;
}

function checkSteps(model: Model, rows: readonly StepRow[], label: string): void {
  const stored = groupBy(rows);
  const ids = new Set([
    ...stored.keys(),
    ...[...model.durable.steps].filter(([, s]) => s.size > 0).map(([id]) => id),
  ]);
  for (const id of ids) {
    const got = stored.get(id) ?? [];
    const want = [...(model.durable.steps.get(id) ?? new Map<string, ModelStep>())];
    const names = got.map((row) => row.name).join(',');
    if (names !== want.map(([name]) => name).join(','))
      violation(model, `${label}: #${id} has steps [${names}], expected [${want.map(([n]) => n).join(',')}]`);
    got.forEach((row, i) => {
      const step = want[i]?.[1];
      if (step && !sameStep(row, step))
        violation(
          model,
          `${label}: step ${row.name} of #${id} is ${describeStep(row)}, expected ${describeStep(step)}`,
        );
    });
  }
}

function checkSignals(model: Model, rows: readonly SignalRow[], label: string): void {
  const stored = groupBy(rows);
  const ids = new Set([...stored.keys(), ...model.durable.signals.keys()]);
  const show = (list: readonly { name: string; payload: string; signalId: string | null }[]) =>
    list.map((s) => `${s.name}=${s.payload}${s.signalId === null ? '' : ` (${s.signalId})`}`).join(', ');
  for (const id of ids) {
    const got = show(stored.get(id) ?? []);
    const want = show(model.durable.signals.get(id) ?? []);
    if (got !== want) violation(model, `${label}: #${id} has signals [${got}], expected [${want}]`);
  }
}

/** Checks the durable state after a call; see the file comment. Forgets the jobs retention deleted. */
export function checkDurableAfterCall(model: Model, call: DurableCall, label: string): void {
  const { before, after, durable } = call;
  const { waits } = model.durable;
  for (const id of before.keys()) if (!after.has(id)) forgetJob(model.durable, id);
  for (const [key, result] of model.durable.finished) {
    const [id, name] = [Number(key.slice(0, key.indexOf('/'))), key.slice(key.indexOf('/') + 1)];
    const row = durable.steps.find((r) => r.jobId === id && r.name === name);
    if (row?.status !== 'SUCCEEDED' || row.result !== result)
      violation(
        model,
        `${label}: finished step ${name} of #${id} (result ${result}) is now ${row ? describeStep(row) : 'gone'}`,
      );
  }
  for (const [id, wait] of waits) {
    const job = after.get(id);
    if (job?.status === 'CANCELLED') {
      waits.delete(id);
      continue;
    }
    if (job?.status !== 'WAITING')
      violation(
        model,
        `${label}: #${id}, WAITING for signal ${wait.name}, is now ${job?.status ?? 'gone'}: no signal of that name came, its deadline (${wait.deadlineMs}) was not due, and it was not cancelled`,
      );
    const stored = durable.waitSignals.get(id);
    if (stored !== wait.name)
      violation(model, `${label}: #${id} waits for signal ${wait.name}, but its wait_signal is ${stored}`);
    if (model.durable.signals.get(id)?.some((s) => s.name === wait.name))
      violation(
        model,
        `${label}: #${id} is still WAITING for ${wait.name} though a signal of that name was sent`,
      );
  }
  for (const [id, name] of durable.waitSignals) {
    if (after.get(id)?.status === 'WAITING' && !waits.has(id))
      violation(
        model,
        `${label}: #${id} is WAITING with wait_signal ${name}, but it waits for no signal (a signal or the promotion would release it)`,
      );
  }
  checkSteps(model, durable.steps, label);
  checkSignals(model, durable.signals, label);
  for (const id of after.keys()) {
    const expected = hasDurableState(model.durable, id);
    const flagged = durable.hasSteps.has(id);
    // Set once a job has a step or a signal; a retry that clears every step may leave it set.
    if (expected ? !flagged : flagged && !model.durable.touched.has(id))
      violation(model, `${label}: #${id} has_steps is ${flagged}, expected ${expected}`);
  }
}

/** What a claim's `stepsJson` says, parsed. */
function parseShipped(text: string): ShippedSteps {
  const shipped = JSON.parse(text) as ClaimedSteps;
  return {
    steps: new Map(
      shipped.steps.map(([name, type, status, result, error, remainingMs]): [string, ShippedStep] => [
        name,
        { type, status, result: canonicalJson(result), error, remainingMs },
      ]),
    ),
    signals: new Map(shipped.signals.map(([name, payload]) => [name, canonicalJson(payload)])),
  };
}

/**
 * Checks what claim `label` shipped with job `c` at `nowMs` against the model (see the file
 * comment); @returns it parsed, `undefined` when it shipped nothing.
 */
export function checkShipped(
  model: Model,
  c: ClaimedJob,
  nowMs: number,
  label: string,
): ShippedSteps | undefined {
  const expected = hasDurableState(model.durable, c.id);
  if (c.stepsJson === undefined) {
    if (expected) violation(model, `${label} shipped no steps with #${c.id}, which has steps or signals`);
    return undefined;
  }
  const shipped = parseShipped(c.stepsJson);
  // A job whose steps a retry cleared stays has_steps: its claims ship empty lists.
  const empty = shipped.steps.size === 0 && shipped.signals.size === 0;
  if (!expected && !(empty && model.durable.touched.has(c.id)))
    violation(model, `${label} shipped ${c.stepsJson} with #${c.id}, which has no steps or signals`);
  // In any order: the thread finds a step by its name.
  const want = model.durable.steps.get(c.id) ?? new Map<string, ModelStep>();
  const names = (list: Iterable<string>) => [...list].sort().join(',');
  if (names(shipped.steps.keys()) !== names(want.keys()))
    violation(model, `${label} shipped #${c.id}'s steps ${c.stepsJson}, expected [${names(want.keys())}]`);
  shipped.steps.forEach((s, name) => {
    const step = want.get(name);
    if (!step) return;
    const remaining = step.wakeMs === null ? null : Math.max(0, step.wakeMs - nowMs);
    const same =
      s.type === step.type &&
      s.status === step.status &&
      s.result === (step.result ?? 'null') &&
      s.error === step.error &&
      (remaining === null
        ? s.remainingMs === null
        : s.remainingMs !== null && Math.abs(s.remainingMs - remaining) < 1);
    if (!same)
      violation(
        model,
        `${label} shipped #${c.id}'s step ${name} as ${JSON.stringify(s)}, expected ${describeStep(step)} (${remaining} ms left)`,
      );
  });
  const first = new Map<string, string>();
  for (const signal of model.durable.signals.get(c.id) ?? [])
    if (!first.has(signal.name)) first.set(signal.name, signal.payload);
  const sorted = (m: ReadonlyMap<string, string>) =>
    JSON.stringify([...m].sort(([a], [b]) => a.localeCompare(b)));
  if (sorted(shipped.signals) !== sorted(first))
    violation(
      model,
      `${label} shipped #${c.id}'s signals ${sorted(shipped.signals)}, expected the first of each name ${sorted(first)}`,
    );
  return shipped;
}

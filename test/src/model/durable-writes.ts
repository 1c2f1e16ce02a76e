// How the model test's reference state of durable steps changes: a step row written, a signal
// sent, a wait's deadline passed, a wait's answer given to a handler. Each refuses (as a
// violation) a change that breaks a guarantee of the feature.
import type { Job } from '@nudge/core';
import { stepKey, stepsOf, type ModelStep } from './durable-state.js';
import type { Model } from './model-state.js';
import { violation } from './violation.js';

/**
 * Writes job `id`'s step row `name` (replacing one of that name in its place, or appending it).
 * A finished step is never written again: the engine returns its stored result instead, from
 * what the claim shipped, so such a write means a claim did not ship it.
 */
export function writeStep(model: Model, id: number, name: string, step: ModelStep): void {
  const steps = stepsOf(model.durable, id);
  const old = steps.get(name);
  if (old?.status === 'SUCCEEDED')
    violation(model, `finished step ${name} of #${id} was run again: the claim did not ship it as finished`);
  steps.set(name, step);
  model.durable.touched.add(id);
  if (step.status === 'SUCCEEDED') model.durable.finished.set(stepKey(id, name), step.result);
}

/**
 * Records what job `id`'s wait `name` returned to its handler (`'null'`, or the payload as
 * canonical JSON): a wait resolves once, by a signal or by its deadline, so every attempt that
 * reaches it gets the same answer.
 */
export function resolveWait(model: Model, id: number, name: string, answer: string, how: string): void {
  const key = stepKey(id, name);
  const first = model.durable.resolutions.get(key);
  model.trace.push(`  wait ${name} of #${id} returns ${answer} (${how})`);
  if (first === undefined) model.durable.resolutions.set(key, answer);
  else if (first !== answer)
    violation(model, `wait ${name} of #${id} returned ${answer} (${how}), but it returned ${first} before`);
}

/**
 * The waits a promotion at `nowMs` must end by their deadline: each job `PENDING` after it, its
 * wait's step row `TIMED_OUT`, ended now. Applies them to the model; @returns how many.
 */
export function timeOutWaits(model: Model, nowMs: number, after: ReadonlyMap<number, Job>): number {
  let count = 0;
  for (const [id, wait] of model.durable.waits) {
    if (wait.deadlineMs === null || wait.deadlineMs > nowMs) continue;
    count += 1;
    model.durable.waits.delete(id);
    const job = after.get(id);
    if (job?.status !== 'PENDING')
      violation(
        model,
        `#${id}'s wait for ${wait.name} passed its deadline but the job is ${job?.status}, not PENDING`,
      );
    const step = model.durable.steps.get(id)?.get(wait.name);
    if (!step) violation(model, `#${id} waited for ${wait.name} without a step row in the model`);
    writeStep(model, id, wait.name, { ...step, status: 'TIMED_OUT', endedMs: nowMs });
  }
  return count;
}

/**
 * A signal named `name` with `payload` (canonical JSON) sent to job `id`, as the store must take
 * it: appended to the job's signals, and a job `WAITING` for that name is `PENDING` after the call.
 */
export function applySignal(
  model: Model,
  id: number,
  name: string,
  payload: string,
  signalId: string | null,
  after: ReadonlyMap<number, Job>,
): void {
  const list = model.durable.signals.get(id) ?? [];
  list.push({ name, payload, signalId });
  model.durable.signals.set(id, list);
  model.durable.touched.add(id);
  const wait = model.durable.waits.get(id);
  if (wait?.name !== name) return;
  model.durable.waits.delete(id);
  const job = after.get(id);
  if (job?.status !== 'PENDING')
    violation(
      model,
      `signal ${name} to #${id}, which waited for it, left the job ${job?.status}, not PENDING`,
    );
}

// The end of every run of the model test: resume every queue, then move the clock, signal every
// job that waits for a signal, and claim, complete, sweep and promote until every job is
// finished; a job that never finishes is stuck. Then each job's steps and signals read through
// the store (`jobSteps`) must be the model's.
import { claimWith, completeWith, promoteWith, sweepWith } from './attempt-commands.js';
import { canonicalJson } from './durable-state.js';
import { advanceTo, describeJob, isFinal, MODEL_KINDS, type Model } from './model-state.js';
import { storeCall, type World } from './model-world.js';
import { sendSignalWith } from './signal-commands.js';
import { violation } from './violation.js';

/** How far each drain round moves the clock, in ms: past every delay, lease and rate window. */
const DRAIN_STEP_MS = 2 * 3_600_000;

/** Most claims a drain round makes, in case a claim keeps returning jobs. */
const CLAIMS_PER_ROUND = 200;

/** Drains the run's jobs (see the file comment), checking every call as the commands do. */
export async function drain(world: World): Promise<void> {
  const { model } = world;
  model.step += 1;
  model.trace.push(`${model.step}. drain`);
  for (const [name, queue] of model.queues) {
    if (!queue.paused) continue;
    const result = await storeCall(world, 0, `setQueuePaused(${name}, false)`, (s) =>
      s.setQueuePaused(name, false),
    );
    if (!result.ok) violation(model, `setQueuePaused threw ${result.error.code}: ${result.error.message}`);
    queue.paused = false;
  }
  const rounds = 10 + model.snapshot.size;
  for (let round = 0; round < rounds; round += 1) {
    if ([...model.snapshot.values()].every((job) => isFinal(job.status))) return checkJobSteps(world);
    const store = round % world.stores.length;
    advanceTo(model, model.nowMs + DRAIN_STEP_MS);
    for (const [id, wait] of [...model.durable.waits]) {
      if (wait.deadlineMs === null) await sendSignalWith(world, store, id, wait.name, 'store');
    }
    await promoteWith(world, store);
    await sweepWith(world, store, 0);
    for (let claims = 0; claims < CLAIMS_PER_ROUND; claims += 1) {
      const claimed = await claimWith(world, store, MODEL_KINDS, 20);
      if (claimed.length === 0) break;
      for (const job of claimed) await completeWith(world, store, job);
    }
  }
  const stuck = [...model.snapshot.values()].filter((job) => !isFinal(job.status));
  if (stuck.length > 0)
    violation(model, `after ${rounds} drain rounds, jobs are stuck:\n${stuck.map(describeJob).join('\n')}`);
}

/** Each job's steps and signals as `Store.jobSteps` reads them, against the model. */
async function checkJobSteps(world: World): Promise<void> {
  const { model } = world;
  const [store] = world.stores;
  if (!store) throw new Error('no store instance');
  for (const id of model.snapshot.keys()) {
    const read = await store.jobSteps(id);
    const got = JSON.stringify([
      read.steps.map((s) => [
        s.name,
        s.type,
        s.status,
        s.attempt,
        canonicalJson(s.result),
        s.error,
        s.wakeAt?.getTime() ?? null,
      ]),
      read.signals.map((s) => [s.name, canonicalJson(s.payload), s.signalId]),
    ]);
    const want = JSON.stringify(expectedSteps(model, id));
    if (got !== want) violation(model, `jobSteps(#${id}) read ${got}, expected ${want}`);
  }
}

function expectedSteps(model: Model, id: number): unknown {
  return [
    [...(model.durable.steps.get(id) ?? [])].map(([name, s]) => [
      name,
      s.type,
      s.status,
      s.attempt,
      s.result ?? 'null',
      s.error,
      s.wakeMs,
    ]),
    (model.durable.signals.get(id) ?? []).map((s) => [s.name, s.payload, s.signalId]),
  ];
}

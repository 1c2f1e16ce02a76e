// The end of every run of the model test: resume every queue, then move the clock and claim,
// complete, sweep and promote until every job is finished; a job that never finishes is stuck.
import { claimWith, completeWith, promoteWith, sweepWith } from './attempt-commands.js';
import { advanceTo, describeJob, isFinal, MODEL_KINDS } from './model-state.js';
import { storeCall, type World } from './model-world.js';
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
    if ([...model.snapshot.values()].every((job) => isFinal(job.status))) return;
    const store = round % world.stores.length;
    advanceTo(model, model.nowMs + DRAIN_STEP_MS);
    await promoteWith(world, store);
    await sweepWith(world, store, 0);
    for (let claims = 0; claims < CLAIMS_PER_ROUND; claims += 1) {
      const claimed = await claimWith(world, store, MODEL_KINDS, 20);
      if (claimed.length === 0) break;
      for (const job of claimed)
        await completeWith(world, store, { id: job.id, version: job.version, workerId: '' });
    }
  }
  const stuck = [...model.snapshot.values()].filter((job) => !isFinal(job.status));
  if (stuck.length > 0)
    violation(model, `after ${rounds} drain rounds, jobs are stuck:\n${stuck.map(describeJob).join('\n')}`);
}

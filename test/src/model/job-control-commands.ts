// The model test's operator commands on jobs: cancel and retry, one job or in bulk.
import fc from 'fast-check';
import { CANCELLABLE_STATUSES, RETRYABLE_STATUSES, type Job, type JobStatus } from '@nudge/core';
import { dependenciesAllow } from './invariants.js';
import { modelCommand, type ModelCommand } from './model-command.js';
import { MODEL_KINDS, MODEL_QUEUES, nowOf, pickOf, type Model } from './model-state.js';
import { storeCall, workerOf } from './model-world.js';
import { retryStepsArb, clearRetriedSteps } from './retry-steps-model.js';
import { violation } from './violation.js';

const optional = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(arb, { nil: undefined });

/** What a single cancel or retry should answer for `job` (`undefined`: deleted by retention). */
function expectedOutcome(job: Job | undefined, allowed: readonly JobStatus[]): string {
  if (!job) return 'not-found';
  return allowed.includes(job.status) ? 'changed' : 'conflict';
}

export const cancelCommand: fc.Arbitrary<ModelCommand> = fc
  .record({ store: fc.nat({ max: 2 }), pick: fc.nat() })
  .map(({ store, pick }) =>
    modelCommand(
      `cancel(job pick ${pick}, via ${workerOf(store)})`,
      async (model, world) => {
        const id = pickOf(model.ids, pick);
        if (id === undefined) return;
        const expected = expectedOutcome(model.snapshot.get(id), CANCELLABLE_STATUSES);
        const result = await storeCall(world, store, `cancelJob(#${id})`, (s) =>
          s.cancelJob(id, nowOf(model)),
        );
        if (!result.ok) violation(model, `cancelJob threw ${result.error.code}: ${result.error.message}`);
        if (result.value.outcome !== expected)
          violation(model, `cancelJob(#${id}) answered ${result.value.outcome}, expected ${expected}`);
        if (expected === 'changed' && model.snapshot.get(id)?.status !== 'CANCELLED')
          violation(model, `cancelled #${id} is ${model.snapshot.get(id)?.status}`);
      },
      (model) => model.ids.length > 0,
    ),
  );

export const cancelManyCommand: fc.Arbitrary<ModelCommand> = fc
  .record({
    store: fc.nat({ max: 2 }),
    statuses: optional(fc.subarray([...CANCELLABLE_STATUSES], { minLength: 1 })),
    queue: optional(fc.constantFrom(...MODEL_QUEUES)),
    kind: optional(fc.constantFrom(...MODEL_KINDS)),
  })
  .map(({ store, statuses, queue, kind }) => {
    const filter = {
      ...(statuses ? { statuses } : {}),
      ...(queue ? { queue } : {}),
      ...(kind ? { kind } : {}),
    };
    return modelCommand(
      `cancelJobs(${JSON.stringify(filter)}, via ${workerOf(store)})`,
      async (model, world) => {
        const matching = [...model.snapshot.values()].filter(
          (job) =>
            (statuses ?? CANCELLABLE_STATUSES).includes(job.status) &&
            (queue === undefined || job.queue === queue) &&
            (kind === undefined || job.kind === kind),
        );
        const result = await storeCall(world, store, `cancelJobs(${JSON.stringify(filter)})`, (s) =>
          s.cancelJobs(filter, nowOf(model)),
        );
        if (!result.ok) violation(model, `cancelJobs threw ${result.error.code}: ${result.error.message}`);
        // A waiting job of the filter may be cancelled first by its dependency's cancel (not counted).
        const direct = matching.filter((job) => job.status !== 'WAITING').length;
        const { changed, running } = result.value;
        if (changed > matching.length || changed < direct)
          violation(model, `cancelJobs changed ${changed}; ${direct} to ${matching.length} matched`);
        for (const job of matching) {
          if (model.snapshot.get(job.id)?.status !== 'CANCELLED')
            violation(model, `#${job.id} of the filter is not CANCELLED`);
        }
        const wasRunning = matching.filter((job) => job.status === 'RUNNING').map((job) => job.id);
        const reported = running.map((job) => job.id).sort((x, y) => x - y);
        if (JSON.stringify(reported) !== JSON.stringify(wasRunning.sort((x, y) => x - y)))
          violation(
            model,
            `cancelJobs reported running ${JSON.stringify(reported)}, expected ${JSON.stringify(wasRunning)}`,
          );
      },
    );
  });

/**
 * Whether retrying `job` would hit the known fault: a dependent put back to `PENDING` whose
 * dependencies did not succeed (`'run'`: did not finish, or are `retried` by the same call).
 */
const knownRetryFault = (model: Model, job: Job, retried: ReadonlySet<number> = new Set()): boolean =>
  model.avoid.has('dependent-retry') &&
  (!dependenciesAllow(model, job) || job.dependsOn.some((id) => retried.has(id)));

export const retryCommand: fc.Arbitrary<ModelCommand> = fc
  .record({ store: fc.nat({ max: 2 }), pick: fc.nat(), steps: retryStepsArb })
  .map(({ store, pick, steps }) =>
    modelCommand(
      `retry(job pick ${pick}${steps ? `, ${JSON.stringify(steps)}` : ''}, via ${workerOf(store)})`,
      async (model, world) => {
        const id = pickOf(model.ids, pick);
        if (id === undefined) return;
        const job = model.snapshot.get(id);
        if (job && knownRetryFault(model, job)) {
          model.trace.push(`  skipped: retrying #${id} would hit a known fault`);
          return;
        }
        const expected = expectedOutcome(job, RETRYABLE_STATUSES);
        // fromStep must name a step of a job the retry applies to (else nothing changes).
        const missing =
          expected === 'changed' &&
          steps?.fromStep !== undefined &&
          !model.durable.steps.get(id)?.has(steps.fromStep);
        const result = await storeCall(
          world,
          store,
          `retryJob(#${id}${steps ? `, ${JSON.stringify(steps)}` : ''})`,
          (s) => s.retryJob(id, nowOf(model), steps),
          {
            expect: (r) => {
              if (r.ok && r.value.outcome === 'changed') clearRetriedSteps(model, id, steps, true);
            },
          },
        );
        if (missing) {
          if (result.ok || result.error.code !== 'STEP_NOT_FOUND')
            violation(
              model,
              `retryJob(#${id}, fromStep ${steps?.fromStep}) answered ${result.ok ? result.value.outcome : result.error.code}; #${id} has no such step: expected STEP_NOT_FOUND`,
            );
          return;
        }
        if (!result.ok) violation(model, `retryJob threw ${result.error.code}: ${result.error.message}`);
        // A dependent's retry may leave it waiting or refuse; the invariants judge what it did.
        if (job && job.dependsOn.length > 0 && expected === 'changed') return;
        if (result.value.outcome !== expected)
          violation(model, `retryJob(#${id}) answered ${result.value.outcome}, expected ${expected}`);
        if (expected === 'changed' && model.snapshot.get(id)?.status !== 'PENDING')
          violation(model, `retried #${id} is ${model.snapshot.get(id)?.status}`);
      },
      (model) => model.ids.length > 0,
    ),
  );

export const retryManyCommand: fc.Arbitrary<ModelCommand> = fc
  .record({
    store: fc.nat({ max: 2 }),
    status: fc.constantFrom<JobStatus>(...RETRYABLE_STATUSES),
    queue: optional(fc.constantFrom(...MODEL_QUEUES)),
    kind: optional(fc.constantFrom(...MODEL_KINDS)),
    steps: retryStepsArb,
  })
  .map(({ store, status, queue, kind, steps }) => {
    const filter = { status, ...(queue ? { queue } : {}), ...(kind ? { kind } : {}), ...steps };
    return modelCommand(
      `retryJobs(${JSON.stringify(filter)}, via ${workerOf(store)})`,
      async (model, world) => {
        const nowMs = model.nowMs;
        const matching = [...model.snapshot.values()].filter(
          (job) =>
            job.status === status &&
            (queue === undefined || job.queue === queue) &&
            (kind === undefined || job.kind === kind) &&
            (job.finishedAt?.getTime() ?? Infinity) <= nowMs,
        );
        // A dependency retried by the same call is unfinished again.
        const retried = new Set(matching.map((job) => job.id));
        if (matching.some((job) => knownRetryFault(model, job, retried))) {
          model.trace.push('  skipped: the filter takes a dependent whose retry would hit a known fault');
          return;
        }
        const result = await storeCall(
          world,
          store,
          `retryJobs(${JSON.stringify(filter)})`,
          (s) => s.retryJobs(filter, new Date(nowMs)),
          {
            // Each job it moved back clears its steps as a single retry would, except that a job
            // without the fromStep step keeps them all.
            expect: (_r, after) => {
              for (const job of matching) {
                const now = after.get(job.id);
                if (now && now.status !== job.status) clearRetriedSteps(model, job.id, steps, false);
              }
            },
          },
        );
        if (!result.ok) violation(model, `retryJobs threw ${result.error.code}: ${result.error.message}`);
        const plain = matching.filter((job) => job.dependsOn.length === 0);
        const { changed } = result.value;
        if (changed > matching.length || changed < plain.length)
          violation(model, `retryJobs changed ${changed}; ${plain.length} to ${matching.length} matched`);
        for (const job of plain) {
          if (model.snapshot.get(job.id)?.status !== 'PENDING')
            violation(model, `#${job.id} of the filter is not PENDING`);
        }
      },
    );
  });

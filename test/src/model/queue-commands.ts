// The model test's commands on queues and time: cluster-wide limits, pause and resume,
// retention, and moving the virtual clock.
import fc from 'fast-check';
import { isFinal, MODEL_KINDS, MODEL_QUEUES, advanceTo, queueOf } from './model-state.js';
import type { QueueLimitsPatch, QueueRateLimit } from '@nudge/store';
import type { TerminalStatus } from '@nudge/core';
import { modelCommand, type ModelCommand } from './model-command.js';
import { storeCall, workerOf } from './model-world.js';
import { violation } from './violation.js';

const optional = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(arb, { nil: undefined });

const sameRate = (x: QueueRateLimit | null, y: QueueRateLimit | null): boolean =>
  x === y || (x !== null && y !== null && x.limit === y.limit && x.intervalMs === y.intervalMs);

export const setLimitsCommand: fc.Arbitrary<ModelCommand> = fc
  .record({
    store: fc.nat({ max: 2 }),
    queue: fc.constantFrom(...MODEL_QUEUES),
    concurrency: optional(fc.constantFrom(null, 1, 2, 3)),
    keyConcurrency: optional(fc.constantFrom(null, 1, 2)),
    rateLimit: optional(
      fc.option(
        fc.record({ limit: fc.integer({ min: 1, max: 3 }), intervalMs: fc.constantFrom(1_000, 60_000) }),
      ),
    ),
  })
  .map(({ store, queue, ...fields }) => {
    const patch = Object.fromEntries(
      Object.entries(fields).filter(([, value]) => value !== undefined),
    ) as QueueLimitsPatch;
    return modelCommand(
      `setQueueLimits(${queue}, ${JSON.stringify(patch)}, via ${workerOf(store)})`,
      async (model, world) => {
        const result = await storeCall(
          world,
          store,
          `setQueueLimits(${queue}, ${JSON.stringify(patch)})`,
          (s) => s.setQueueLimits(queue, patch),
        );
        if (!result.ok)
          violation(model, `setQueueLimits threw ${result.error.code}: ${result.error.message}`);
        const state = queueOf(model, queue);
        if (patch.concurrency !== undefined) state.concurrency = patch.concurrency;
        if (patch.keyConcurrency !== undefined) state.keyConcurrency = patch.keyConcurrency;
        const rate = patch.rateLimit;
        if (rate !== undefined && !sameRate(rate, state.rate)) {
          state.rate = rate === null ? null : { ...rate, sinceStep: model.step };
        }
        const got = result.value;
        const want = { concurrency: state.concurrency, keyConcurrency: state.keyConcurrency };
        if (
          got.concurrency !== want.concurrency ||
          got.keyConcurrency !== want.keyConcurrency ||
          !sameRate(got.rateLimit, state.rate)
        )
          violation(
            model,
            `setQueueLimits(${queue}) left ${JSON.stringify(got)}, expected ${JSON.stringify({ ...want, rate: state.rate })}`,
          );
      },
    );
  });

export const pauseCommand: fc.Arbitrary<ModelCommand> = fc
  .record({ store: fc.nat({ max: 2 }), queue: fc.constantFrom(...MODEL_QUEUES), paused: fc.boolean() })
  .map(({ store, queue, paused }) =>
    modelCommand(`${paused ? 'pause' : 'resume'}(${queue}, via ${workerOf(store)})`, async (model, world) => {
      const result = await storeCall(world, store, `setQueuePaused(${queue}, ${paused})`, (s) =>
        s.setQueuePaused(queue, paused),
      );
      if (!result.ok) violation(model, `setQueuePaused threw ${result.error.code}: ${result.error.message}`);
      queueOf(model, queue).paused = paused;
      if (result.value.paused !== paused)
        violation(model, `setQueuePaused(${queue}, ${paused}) answered paused ${result.value.paused}`);
    }),
  );

export const pruneCommand: fc.Arbitrary<ModelCommand> = fc
  .record({
    store: fc.nat({ max: 2 }),
    status: fc.constantFrom<TerminalStatus>('SUCCEEDED', 'FAILED', 'CANCELLED'),
    kind: fc.constantFrom(...MODEL_KINDS),
    olderThanMs: fc.constantFrom(0, 60_000),
    limit: fc.integer({ min: 1, max: 5 }),
  })
  .map(({ store, ...input }) =>
    modelCommand(`pruneFinished(${JSON.stringify(input)}, via ${workerOf(store)})`, async (model, world) => {
      const cutoffMs = model.nowMs - input.olderThanMs;
      const finished = [...model.snapshot.values()].filter(
        (job) => job.status === input.status && job.kind === input.kind && job.finishedAt,
      );
      // Times the database wrote carry microseconds on PostgreSQL: allow 1 ms either side. A
      // throttled job is kept while its window is open (the model does not track windows, which a
      // later enqueue of the key may reopen), so it may or may not go.
      const surely = finished.filter(
        (job) => !job.throttleKey && (job.finishedAt?.getTime() ?? 0) < cutoffMs - 1,
      ).length;
      const maybe = finished.filter((job) => (job.finishedAt?.getTime() ?? 0) <= cutoffMs + 1).length;
      const result = await storeCall(
        world,
        store,
        `pruneFinished(${JSON.stringify(input)})`,
        (s) => s.pruneFinished({ ...input, now: new Date(model.nowMs) }),
        { prunes: true },
      );
      if (!result.ok) violation(model, `pruneFinished threw ${result.error.code}: ${result.error.message}`);
      const deleted = result.value;
      if (deleted < Math.min(input.limit, surely) || deleted > Math.min(input.limit, maybe))
        violation(
          model,
          `pruneFinished deleted ${deleted}; ${surely} to ${maybe} were old enough, limit ${input.limit}`,
        );
      const gone = [...result.before.keys()].filter((id) => !model.snapshot.has(id));
      if (gone.length !== deleted)
        violation(model, `pruneFinished said ${deleted} but ${gone.length} jobs are gone`);
      for (const id of gone) {
        const job = result.before.get(id);
        if (!job || !isFinal(job.status) || job.status !== input.status || job.kind !== input.kind)
          violation(model, `pruneFinished deleted #${id} (${job?.status} ${job?.kind}) outside its filter`);
      }
    }),
  );

/** Moves the virtual clock forward. */
export const advanceClockCommand: fc.Arbitrary<ModelCommand> = fc
  .constantFrom(1, 999, 1_000, 30_000, 61_000, 600_000, 3_600_000)
  .map((ms) =>
    modelCommand(`advance clock ${ms} ms`, async (model) => {
      advanceTo(model, model.nowMs + ms);
    }),
  );

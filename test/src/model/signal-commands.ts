// The model test's signals: sent through a store (`sendSignal`, with or without a `signalId`,
// whose repeat is the first signal sent with it), or by a producer's plain SQL insert in its own
// transaction, which commits or rolls back; to a job that waits for it or not, to a finished job,
// or to no job at all.
import fc from 'fast-check';
import type { Job } from '@nudge/core';
import type { SentSignal } from '@nudge/store';
import { canonicalJson, jsonOf, SIGNAL_NAMES } from './durable-state.js';
import { applySignal } from './durable-writes.js';
import { modelCommand, type ModelCommand } from './model-command.js';
import { isFinal, pickOf } from './model-state.js';
import { storeCall, workerOf, type CallResult, type World } from './model-world.js';
import { violation } from './violation.js';

/** How a signal is sent: a store's `sendSignal`, or a plain SQL insert that commits or rolls back. */
export type SignalRoute = 'store' | 'sql' | 'rollback';

/** An id no job has (a run creates far fewer). */
const UNKNOWN_ID = 1_000_000;

/**
 * Sends signal `name` to job `id` by `route` through instance `store`, checking the answer: a
 * repeat of a `signalId` the job has is the first signal (whatever the job's status), a job that
 * does not exist (or was deleted) is `JOB_NOT_FOUND`, a finished one `JOB_STATE_CONFLICT` (a SQL
 * insert is refused); a signal that commits reaches the job, one rolled back changes nothing.
 */
export async function sendSignalWith(
  world: World,
  store: number,
  id: number,
  name: string,
  route: SignalRoute,
  signalId?: string,
): Promise<void> {
  const { model } = world;
  model.durable.counter += 1;
  const value = jsonOf(model.durable.counter);
  const payloadJson = JSON.stringify(value);
  const payload = canonicalJson(value);
  const job = model.snapshot.get(id);
  const first =
    route === 'store' && signalId !== undefined && job
      ? model.durable.signals.get(id)?.find((s) => s.signalId === signalId)
      : undefined;
  const expected = first ? 'repeat' : !job ? 'not-found' : isFinal(job.status) ? 'finished' : 'sent';
  const what = `#${id}, ${name}, ${payloadJson}${signalId === undefined ? '' : `, id ${signalId}`}`;
  if (route === 'store') {
    const check = (r: CallResult<SentSignal>, after: ReadonlyMap<number, Job>) => {
      if (expected === 'not-found' || expected === 'finished') {
        const code = expected === 'not-found' ? 'JOB_NOT_FOUND' : 'JOB_STATE_CONFLICT';
        if (r.ok || r.error.code !== code)
          violation(model, `sendSignal(${what}) answered ${r.ok ? 'ok' : r.error.code}, expected ${code}`);
        return;
      }
      if (!r.ok) violation(model, `sendSignal(${what}) threw ${r.error.code}: ${r.error.message}`);
      const { signal, created } = r.value;
      const shown = `${signal.name}=${canonicalJson(signal.payload)} (${signal.signalId}) of #${signal.jobId}`;
      const want = first ?? { name, payload, signalId: signalId ?? null };
      if (
        created !== !first ||
        signal.jobId !== id ||
        signal.name !== want.name ||
        canonicalJson(signal.payload) !== want.payload ||
        signal.signalId !== want.signalId
      )
        violation(model, `sendSignal(${what}) answered ${shown}, created ${created}; expected ${expected}`);
      if (!first) applySignal(model, id, name, payload, signalId ?? null, after);
    };
    await storeCall(
      world,
      store,
      `sendSignal(${what})`,
      (s) => s.sendSignal({ jobId: id, name, payloadJson, ...(signalId === undefined ? {} : { signalId }) }),
      { expect: check },
    );
    return;
  }
  const rollback = route === 'rollback';
  await storeCall(
    world,
    store,
    `sql insert signal(${what})${rollback ? ', rolled back' : ''}`,
    () => world.reader.insertSignal(id, name, payloadJson, rollback),
    {
      expect: (r, after) => {
        if (!r.ok) violation(model, `the signal insert threw ${r.error.code}`);
        const refused = r.value !== undefined;
        if (refused !== (expected !== 'sent'))
          violation(
            model,
            `the signal insert (${what}) was ${refused ? `refused: ${r.value}` : 'taken'}; the job is ${expected}`,
          );
        if (!refused && !rollback) applySignal(model, id, name, payload, null, after);
      },
    },
  );
}

export const signalCommand: fc.Arbitrary<ModelCommand> = fc
  .record({
    store: fc.nat({ max: 2 }),
    pick: fc.option(fc.nat(), { nil: undefined, freq: 8 }),
    name: fc.constantFrom(...SIGNAL_NAMES),
    route: fc.constantFrom<SignalRoute>('store', 'store', 'store', 'sql', 'rollback'),
    signalId: fc.option(fc.constantFrom('k1', 'k2'), { nil: undefined }),
  })
  .map(({ store, pick, name, route, signalId }) => {
    const id = route === 'store' ? signalId : undefined;
    return modelCommand(
      `signal(${pick === undefined ? 'unknown job' : `job pick ${pick}`}, ${name}, by ${route}${id === undefined ? '' : `, id ${id}`}, via ${workerOf(store)})`,
      async (model, world) => {
        const target = pick === undefined ? UNKNOWN_ID : pickOf(model.ids, pick);
        if (target === undefined) return;
        await sendSignalWith(world, store, target, name, route, id);
      },
    );
  });

/** Signals a job the model says waits for a signal (picked), by its name. */
export const signalWaitingCommand: fc.Arbitrary<ModelCommand> = fc
  .record({
    store: fc.nat({ max: 2 }),
    pick: fc.nat(),
    route: fc.constantFrom<SignalRoute>('store', 'sql', 'rollback'),
  })
  .map(({ store, pick, route }) =>
    modelCommand(
      `signal a waiting job (pick ${pick}, by ${route}, via ${workerOf(store)})`,
      async (model, world) => {
        const waiting = pickOf([...model.durable.waits], pick);
        if (waiting) await sendSignalWith(world, store, waiting[0], waiting[1].name, route);
      },
      (model) => model.durable.waits.size > 0,
    ),
  );

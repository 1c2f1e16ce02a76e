// The model test's durable-step commands: one `ctx.step`, `ctx.sleep` or `ctx.waitForSignal`
// under a lease, or a whole handler run from the top under one (each job's handler is a fixed
// list of steps, sleeps and waits, so its attempts replay it as the engine does), which may die
// part way, throw from a step, or return.
import fc from 'fast-check';
import { completeWith, holds } from './attempt-commands.js';
import { SIGNAL_NAMES, SLEEP_NAMES, STEP_NAMES } from './durable-state.js';
import { modelCommand, type ModelCommand } from './model-command.js';
import { pickOf, type Model, type ModelLease } from './model-state.js';
import { workerOf } from './model-world.js';
import { sleepAction, stepAction, waitAction } from './step-actions.js';

/** Which lease a command picks: among those that still hold their job, or among all (most lost). */
interface LeasePick {
  readonly pick: number;
  readonly held: boolean;
}

const leasePick: fc.Arbitrary<LeasePick> = fc.record({
  pick: fc.nat(),
  held: fc.constantFrom(true, true, true, false),
});

const describePick = ({ pick, held }: LeasePick): string => `lease pick ${pick}${held ? ' held' : ''}`;

/** The lease `pick` names: among the held ones when `held` and there are any, else among all. */
function leaseOf(model: Model, { pick, held }: LeasePick): ModelLease | undefined {
  const live = model.leases.filter((lease) => holds(model.snapshot.get(lease.id), lease));
  return pickOf(held && live.length > 0 ? live : model.leases, pick);
}

const hasLeases = (model: Readonly<Model>): boolean => model.leases.length > 0;

export const stepCommand: fc.Arbitrary<ModelCommand> = fc
  .record({
    store: fc.nat({ max: 2 }),
    pick: leasePick,
    name: fc.constantFrom(...STEP_NAMES),
    fails: fc.constantFrom(false, false, false, true),
    undefinedResult: fc.constantFrom(false, false, false, true),
    durationMs: fc.constantFrom(0, 250),
  })
  .map(({ store, pick, ...spec }) =>
    modelCommand(
      `step(${describePick(pick)}, ${spec.name}${spec.fails ? ', throws' : ''}, via ${workerOf(store)})`,
      async (model, world) => {
        const lease = leaseOf(model, pick);
        if (lease) await stepAction(world, store, lease, spec);
      },
      hasLeases,
    ),
  );

export const sleepCommand: fc.Arbitrary<ModelCommand> = fc
  .record({
    store: fc.nat({ max: 2 }),
    pick: leasePick,
    name: fc.constantFrom(...SLEEP_NAMES),
    delayMs: fc.constantFrom(0, 1_000, 600_000),
    until: fc.boolean(),
  })
  .map(({ store, pick, ...sleep }) =>
    modelCommand(
      `${sleep.until ? 'sleepUntil' : 'sleep'}(${describePick(pick)}, ${sleep.name}, ${sleep.until ? 'now + ' : ''}${sleep.delayMs} ms, via ${workerOf(store)})`,
      async (model, world) => {
        const lease = leaseOf(model, pick);
        if (lease) await sleepAction(world, store, lease, sleep);
      },
      hasLeases,
    ),
  );

export const waitCommand: fc.Arbitrary<ModelCommand> = fc
  .record({
    store: fc.nat({ max: 2 }),
    pick: leasePick,
    name: fc.constantFrom(...SIGNAL_NAMES),
    timeoutMs: fc.constantFrom(undefined, 0, 1_000, 600_000),
  })
  .map(({ store, pick, ...wait }) =>
    modelCommand(
      `waitForSignal(${describePick(pick)}, ${wait.name}, timeout ${wait.timeoutMs} ms, via ${workerOf(store)})`,
      async (model, world) => {
        const lease = leaseOf(model, pick);
        if (lease) await waitAction(world, store, lease, wait);
      },
      hasLeases,
    ),
  );

/** One call of a handler's flow. */
type FlowCall =
  | { readonly kind: 'step'; readonly name: string }
  | { readonly kind: 'sleep'; readonly name: string; readonly delayMs: number; readonly until: boolean }
  | { readonly kind: 'wait'; readonly name: string; readonly timeoutMs: number | undefined };

const step = (name: string): FlowCall => ({ kind: 'step', name });
const sleep = (name: string, delayMs: number, until = false): FlowCall => ({
  kind: 'sleep',
  name,
  delayMs,
  until,
});
const wait = (name: string, timeoutMs?: number): FlowCall => ({ kind: 'wait', name, timeoutMs });

/** The handler of job `id` is `FLOWS[id % FLOWS.length]`. */
const FLOWS: readonly (readonly FlowCall[])[] = [
  [step('s1'), sleep('nap1', 1_000), wait('sigA', 1_000), step('s2')],
  [step('s1'), wait('sigB'), step('s2'), step('s3')],
  [step('s2'), sleep('nap2', 600_000, true), wait('sigA', 600_000), step('s3')],
  [wait('sigB', 0), step('s1'), sleep('nap1', 0), step('s3')],
];

/**
 * Runs the picked lease's job's handler from the top: each call as the engine would, until one
 * ends the attempt (a suspend, a throw, a lost lease), or the attempt dies before call `diesAt`,
 * or the flow ends (then the handler returns: the attempt completes when `completes`).
 */
export const handlerCommand: fc.Arbitrary<ModelCommand> = fc
  .record({
    store: fc.nat({ max: 2 }),
    pick: leasePick,
    diesAt: fc.option(fc.nat({ max: 3 }), { nil: undefined, freq: 3 }),
    throwsAt: fc.option(fc.nat({ max: 3 }), { nil: undefined, freq: 4 }),
    completes: fc.constantFrom(true, true, false),
    undefinedResults: fc.boolean(),
  })
  .map(({ store, pick, diesAt, throwsAt, completes, undefinedResults }) =>
    modelCommand(
      `handler(${describePick(pick)}${diesAt === undefined ? '' : `, dies before call ${diesAt}`}${throwsAt === undefined ? '' : `, call ${throwsAt} throws`}${completes ? '' : ', returns but is not completed'}, via ${workerOf(store)})`,
      async (model, world) => {
        const lease = leaseOf(model, pick);
        if (!lease) return;
        const flow = FLOWS[lease.id % FLOWS.length] ?? [];
        for (const [i, call] of flow.entries()) {
          if (i === diesAt)
            return void model.trace.push(`  #${lease.id} v${lease.version}: the attempt dies`);
          const goesOn =
            call.kind === 'step'
              ? await stepAction(world, store, lease, {
                  name: call.name,
                  fails: i === throwsAt,
                  undefinedResult: undefinedResults,
                  durationMs: 10,
                })
              : call.kind === 'sleep'
                ? await sleepAction(world, store, lease, call)
                : await waitAction(world, store, lease, call);
          if (!goesOn) return;
        }
        if (completes) await completeWith(world, store, lease);
      },
      hasLeases,
    ),
  );

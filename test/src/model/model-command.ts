// The shape of the model test's commands: a fast-check async command over the model and the
// store instances, labelled by what was generated (its picks resolve when it runs).
import type fc from 'fast-check';
import type { Model } from './model-state.js';
import type { World } from './model-world.js';

/** One command of the model test. */
export type ModelCommand = fc.AsyncCommand<Model, World>;

/**
 * A command labelled `label` that runs when `check` allows it (default: always); each run is one
 * step of the model, written to its trace.
 */
export function modelCommand(
  label: string,
  run: (model: Model, world: World) => Promise<void>,
  check: (model: Readonly<Model>) => boolean = () => true,
): ModelCommand {
  return {
    check,
    run: async (model, world) => {
      model.step += 1;
      model.trace.push(`${model.step}. ${label}  [now +${model.nowMs - model.startMs} ms]`);
      await run(model, world);
    },
    toString: () => label,
  };
}

import type { RunningSystem, StartOptions, SystemContext } from '../bench-system.js';

/** Starts `spec`, runs `body` with it, and stops it whatever happens. */
export async function withSystem<T, S extends RunningSystem = RunningSystem>(
  spec: { start(context: SystemContext, options?: StartOptions): Promise<S> },
  context: SystemContext,
  body: (system: S) => Promise<T>,
  options?: StartOptions,
): Promise<T> {
  const system = await spec.start(context, options);
  try {
    return await body(system);
  } finally {
    await system.stop();
  }
}

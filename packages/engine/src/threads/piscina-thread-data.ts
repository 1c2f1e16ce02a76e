import type { ThreadTracing } from './thread-messages.js';

/** Data every Piscina worker of a `PiscinaPool` starts with (Piscina's `workerData`). */
export interface PiscinaThreadData {
  /** `file:` URL of the user's handler module. */
  readonly handlersUrl: string;
  /** How much to lower the worker's scheduling priority (`nice`), from 0 (not) to 19. */
  readonly niceIncrement: number;
  /** Shortest time between two progress messages of one worker, in ms. */
  readonly progressIntervalMs: number;
  /** Most `ctx.log` lines an attempt sends; later ones are only counted. */
  readonly logLinesPerJob: number;
  /** Name of the pool's `BroadcastChannel` that carries aborts (`ctx.signal`). */
  readonly abortChannel: string;
  /** How the worker traces its attempts; absent when the engine does not trace. */
  readonly tracing?: ThreadTracing;
}

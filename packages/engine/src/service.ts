/**
 * One background service of an engine: the claimer, the lease keeper, the rescuer, the promoter
 * and so on. The engine wires its services from one list (see `wireEngine`), starts them in that
 * order and stops them in reverse. A service talks to the others only through the ports passed
 * to its constructor, never through the engine's public events.
 */
export interface EngineService {
  /** What the service does, for logs and tests: `claimer`, `rescuer`, … */
  readonly name: string;
  /**
   * Whether the service keeps running while attempts finish during shutdown: the lease keeper and
   * the instance registry stop only once no attempt runs; every other service stops first.
   */
  readonly outlivesAttempts?: boolean;
  /** Starts its timers or connections. Called once. */
  start(): void;
  /**
   * Stops its timers; resolves once work in flight (a claim pass, a listener's connection) is
   * done. Idempotent.
   */
  stop(): void | Promise<void>;
  /** One run of its work, now, without waiting for a timer: for tests and tools. */
  runOnce(): Promise<unknown>;
}

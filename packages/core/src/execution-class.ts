/**
 * How a kind's handler runs, declared next to it in the handler module.
 *
 * - `cpu` (the default): CPU-bound; one job per worker thread at a time, so a job has a core to
 *   itself. A timeout aborts `ctx.signal`, then terminates the thread.
 * - `async`: I/O-bound (e-mail, HTTP calls); many jobs share a thread, up to the engine's
 *   `asyncConcurrency` each. A timeout aborts `ctx.signal`; only a handler that ignores it past
 *   the abort grace gets its thread terminated, and the other jobs on that thread are given back
 *   without being charged an attempt.
 */
export const EXECUTION_CLASSES = ['cpu', 'async'] as const;

/** One of {@link EXECUTION_CLASSES}. */
export type ExecutionClass = (typeof EXECUTION_CLASSES)[number];

/** How {@link retrySqliteBusy} paces its tries; every field in ms. */
export interface SqliteBusyRetryOptions {
  /** Total pause before the error is let through. @defaultValue {@link SQLITE_BUSY_RETRY_BUDGET_MS} */
  readonly budgetMs?: number;
  /** The first pause; each next one doubles, up to `maxPauseMs`. @defaultValue 5 */
  readonly firstPauseMs?: number;
  /** The longest pause. @defaultValue 250 */
  readonly maxPauseMs?: number;
}

/**
 * Default total pause, in ms, spent retrying a write that met `SQLITE_BUSY` before the error is
 * let through: 5 s, as better-sqlite3's default `timeout`. It comes on top of the connection's
 * `busy_timeout`, which SQLite waits for inside each try.
 */
export const SQLITE_BUSY_RETRY_BUDGET_MS = 5000;

/** Whether `error` is SQLite's "database is locked" (`SQLITE_BUSY` and its extended codes). */
export function isSqliteBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/** Pauses between tries, in ms: doubling, with ±20% jitter (so waiters do not retry in step). */
function* pauses(options: SqliteBusyRetryOptions): Generator<number> {
  const budget = options.budgetMs ?? SQLITE_BUSY_RETRY_BUDGET_MS;
  const max = options.maxPauseMs ?? 250;
  let spent = 0;
  for (let pause = options.firstPauseMs ?? 5; spent < budget; pause = Math.min(pause * 2, max)) {
    const next = Math.max(1, Math.min(Math.round(pause * (0.8 + Math.random() * 0.4)), budget - spent));
    spent += next;
    yield next;
  }
}

/**
 * Runs `write` (one statement or a whole transaction of its own) and runs it again while it fails
 * with `SQLITE_BUSY`, pausing without blocking the event loop, for at most `budgetMs` of pauses.
 * Safe because a try that met `SQLITE_BUSY` wrote nothing: a write transaction that begins
 * `IMMEDIATE` fails at `BEGIN` or not at all, and one statement is its own transaction.
 *
 * @throws the last `SQLITE_BUSY` error once the budget is spent; any other error at once
 */
export async function retrySqliteBusy<T>(
  write: () => Promise<T> | T,
  options: SqliteBusyRetryOptions = {},
): Promise<T> {
  let schedule: Generator<number> | undefined;
  for (;;) {
    try {
      return await write();
    } catch (error) {
      const pause = isSqliteBusy(error) ? (schedule ??= pauses(options)).next() : undefined;
      if (!pause || pause.done) throw error;
      await new Promise((resolve) => setTimeout(resolve, pause.value));
    }
  }
}

let sleeper: Int32Array | undefined;

/**
 * {@link retrySqliteBusy} for synchronous code: the pauses block the thread (`Atomics.wait`), as
 * SQLite's own busy handler does.
 */
export function retrySqliteBusySync<T>(write: () => T, options: SqliteBusyRetryOptions = {}): T {
  let schedule: Generator<number> | undefined;
  for (;;) {
    try {
      return write();
    } catch (error) {
      const pause = isSqliteBusy(error) ? (schedule ??= pauses(options)).next() : undefined;
      if (!pause || pause.done) throw error;
      sleeper ??= new Int32Array(new SharedArrayBuffer(4));
      Atomics.wait(sleeper, 0, 0, pause.value);
    }
  }
}

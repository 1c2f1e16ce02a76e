/**
 * Pauses between tries of a write that met `SQLITE_BUSY`, in ms: doubling from 5 ms to at most
 * 250 ms, with ±20% jitter, until {@link SQLITE_BUSY_RETRY_BUDGET_MS} of pauses is spent.
 */
const FIRST_PAUSE_MS = 5;
const MAX_PAUSE_MS = 250;

/**
 * Total pause, in ms, the SDK spends retrying a write of its own transaction that met
 * `SQLITE_BUSY` before it lets the error through: 5 s. It comes on top of the connection's
 * `busy_timeout` (better-sqlite3's default `timeout` is 5000 ms), which SQLite waits for inside
 * each try.
 */
export const SQLITE_BUSY_RETRY_BUDGET_MS = 5000;

/** Whether `error` is SQLite's "database is locked" (`SQLITE_BUSY` and its extended codes). */
export function isSqliteBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

function* pauses(): Generator<number> {
  let spent = 0;
  for (
    let pause = FIRST_PAUSE_MS;
    spent < SQLITE_BUSY_RETRY_BUDGET_MS;
    pause = Math.min(pause * 2, MAX_PAUSE_MS)
  ) {
    const next = Math.min(
      Math.round(pause * (0.8 + Math.random() * 0.4)),
      SQLITE_BUSY_RETRY_BUDGET_MS - spent,
    );
    spent += next;
    yield next;
  }
}

/**
 * Runs `write` (a whole transaction of its own) and runs it again while it fails with
 * `SQLITE_BUSY`, pausing without blocking the event loop, for at most
 * {@link SQLITE_BUSY_RETRY_BUDGET_MS} of pauses.
 *
 * @throws the last `SQLITE_BUSY` error once the budget is spent; any other error at once
 */
export async function retrySqliteBusy<T>(write: () => Promise<T> | T): Promise<T> {
  const schedule = pauses();
  for (;;) {
    try {
      return await write();
    } catch (error) {
      const pause = isSqliteBusy(error) ? schedule.next() : undefined;
      if (!pause || pause.done) throw error;
      await new Promise((resolve) => setTimeout(resolve, pause.value));
    }
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * {@link retrySqliteBusy} for synchronous code: the pauses block the thread (`Atomics.wait`), as
 * SQLite's own busy handler does.
 */
export function retrySqliteBusySync<T>(write: () => T): T {
  const schedule = pauses();
  for (;;) {
    try {
      return write();
    } catch (error) {
      const pause = isSqliteBusy(error) ? schedule.next() : undefined;
      if (!pause || pause.done) throw error;
      Atomics.wait(sleeper, 0, 0, pause.value);
    }
  }
}

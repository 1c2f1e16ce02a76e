import { retrySqliteBusy } from '@nudge/core';

/**
 * How long one SQLite call may wait for another process's lock inside SQLite's own busy handler,
 * in ms. That wait sleeps on the calling thread, which is the event loop's, so it is kept short;
 * longer waits are taken by {@link withBusyRetry} on a timer.
 */
export const SYNC_BUSY_WAIT_MS = 5;

/**
 * Runs `call` (one statement or one `IMMEDIATE` transaction on a connection whose busy_timeout is
 * {@link SYNC_BUSY_WAIT_MS}) and, while another process holds the file's lock, runs it again after
 * a pause of about 1, 2, 4 … up to 16 ms. A process waiting for the write lock so keeps serving
 * HTTP, timers and heartbeats, where SQLite's busy handler would block its thread for the whole
 * wait.
 *
 * @param budgetMs - longest total pause, in ms (the store's busy timeout)
 * @throws the last `SQLITE_BUSY` error once `budgetMs` of pauses is spent; any other error at once
 */
export function withBusyRetry<T>(call: () => T | Promise<T>, budgetMs: number): Promise<T> {
  return retrySqliteBusy(call, { budgetMs, firstPauseMs: 1, maxPauseMs: 16 });
}

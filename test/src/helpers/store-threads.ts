import { Worker } from 'node:worker_threads';
import type { TestDatabase } from './databases.js';

/** What a store thread does once every thread is ready. */
export type StoreThreadTask =
  | { readonly type: 'migrate' }
  | {
      readonly type: 'drain';
      readonly workerId: string;
      readonly kinds: readonly string[];
      /** Most jobs per claim. */
      readonly limit: number;
    };

/** One claim call of a `drain` thread: its wall-clock span in ms and the leases it returned. */
export interface ClaimCall {
  readonly startedAt: number;
  readonly endedAt: number;
  readonly jobs: ReadonlyArray<{ readonly id: number; readonly version: number }>;
}

/** What a store thread reports. */
export type StoreThreadResult =
  | { readonly type: 'migrate'; readonly applied: number[] }
  | { readonly type: 'drain'; readonly calls: ClaimCall[] };

/** A message from a store thread to the test. */
export type StoreThreadMessage =
  { readonly type: 'ready' } | { readonly type: 'done'; result: StoreThreadResult };

const THREAD = new URL('../fixtures/store-thread.js', import.meta.url);

/**
 * Runs each task in a worker thread of its own, each with its own store on `db` (so SQLite calls,
 * which block their thread, really run side by side, as in separate processes). Every thread
 * opens its store and connects first; then all are released at once. Resolves with the results in
 * task order; rejects when a thread fails or `timeoutMs` passes.
 */
export async function runStoreThreads(
  db: TestDatabase,
  tasks: readonly StoreThreadTask[],
  timeoutMs = 60_000,
): Promise<StoreThreadResult[]> {
  const start = new Int32Array(new SharedArrayBuffer(4));
  const workers = tasks.map((task) => new Worker(THREAD, { workerData: { url: db.url, task, start } }));
  let ready = 0;
  const release = (): void => {
    Atomics.store(start, 0, 1);
    Atomics.notify(start, 0);
  };
  const results = workers.map(
    (worker) =>
      new Promise<StoreThreadResult>((resolve, reject) => {
        let result: StoreThreadResult | undefined;
        worker.on('message', (message: StoreThreadMessage) => {
          if (message.type === 'ready') {
            ready += 1;
            if (ready === workers.length) release();
          } else result = message.result;
        });
        worker.on('error', reject);
        worker.on('exit', (code) =>
          result
            ? resolve(result)
            : reject(new Error(`a store thread exited with code ${code} and no result`)),
        );
      }),
  );
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`store threads still running after ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([Promise.all(results), timeout]);
  } finally {
    clearTimeout(timer);
    release();
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}

/** Whether two spans of wall-clock time, in ms, overlap. */
export function overlaps(
  a: { startedAt: number; endedAt: number },
  b: { startedAt: number; endedAt: number },
) {
  return a.startedAt < b.endedAt && b.startedAt < a.endedAt;
}

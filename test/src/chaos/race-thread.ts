// A worker thread with a store of its own for scenario 5: it opens the store, reports ready,
// blocks until the starting flag is raised, waits `delayMs`, then either sweeps expired leases
// until none is left or completes `leases` in chunks. See scenarios/sweep-race.ts.
import { parentPort, workerData } from 'node:worker_threads';
import { setTimeout as sleep } from 'node:timers/promises';
import { createStore, type JobLease } from '@nudge/store';

/** What a race thread is given. */
export interface RaceThreadData {
  readonly url: string;
  readonly role: 'sweep' | 'complete';
  readonly leases: readonly JobLease[];
  readonly delayMs: number;
  /** Completions per statement, and the sweep's page size.*/
  readonly chunk: number;
  /** Index 0 turns from 0 to 1 when every thread is ready. */
  readonly start: Int32Array;
}

const { url, role, leases, delayMs, chunk: size, start } = workerData as RaceThreadData;
const store = createStore(url);
try {
  await store.ping();
  parentPort?.postMessage('ready');
  Atomics.wait(start, 0, 0);
  if (delayMs > 0) await sleep(delayMs);
  let settled = 0;
  if (role === 'sweep') {
    for (;;) {
      const result = await store.sweepExpired({ retryDelayMs: () => 0, limit: size });
      settled += result.requeued + result.failed;
      if (result.requeued + result.failed === 0) break;
    }
  } else {
    for (let i = 0; i < leases.length; i += size) {
      const chunk = leases.slice(i, i + size);
      const written = await store.complete(
        chunk.map((lease) => ({ ...lease, resultJson: JSON.stringify({ version: lease.version }) })),
      );
      settled += written.length;
    }
  }
  parentPort?.postMessage(settled);
} finally {
  await store.close();
}

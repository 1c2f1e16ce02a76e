import { setTimeout as sleep } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import type { RunningSystem } from '../bench-system.js';

/** Time between two looks at the system's storage, in ms. */
const POLL_INTERVAL_MS = 50;

/**
 * Polls the system's own storage until every job enqueued through `system` is completed.
 * @returns `true` once it is, `false` when `timeoutMs` passed first
 */
export async function waitUntilFinished(
  system: Pick<RunningSystem, 'unfinished'>,
  timeoutMs: number,
): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if ((await system.unfinished()) === 0) return true;
    if (performance.now() > deadline) return false;
    await sleep(POLL_INTERVAL_MS);
  }
}

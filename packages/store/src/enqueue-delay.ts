import { MAX_DELAY_MS, NudgeError } from '@nudge/core';
import type { EnqueueInput } from './store.js';

export { MAX_DELAY_MS };

/**
 * Checks the start time of a new job: `delayMs` a whole number from 0 to {@link MAX_DELAY_MS},
 * and not given together with `runAt` (each sets `run_at`; which one wins would be a guess).
 *
 * @param where - how the message names the job, e.g. `jobs/3/` in a batch; `''` for a single job
 * @throws NudgeError `INVALID_REQUEST` naming the field(s) at fault
 */
export function assertEnqueueDelay(input: EnqueueInput, where = ''): void {
  const { delayMs } = input;
  if (delayMs === undefined) return;
  if (input.runAt !== undefined) {
    throw new NudgeError(
      'INVALID_REQUEST',
      `${where}delayMs and ${where}runAt are mutually exclusive: give one of them, not both`,
    );
  }
  if (!Number.isInteger(delayMs) || delayMs < 0 || delayMs > MAX_DELAY_MS) {
    throw new NudgeError(
      'INVALID_REQUEST',
      `${where}delayMs must be a whole number of ms from 0 to ${MAX_DELAY_MS} (365 days) (got ${String(delayMs)})`,
    );
  }
}

import { terminalSafe } from './terminal-text.js';
import type { EnqueuedJob } from '@nudge/store';
import { CliError } from './cli-error.js';

/**
 * The value of `--throttle KEY/WINDOW_MS` or `--debounce KEY/DELAY_MS` as the job option's
 * fields: the key is everything before the last `/` (a key may hold `/`), the ms after it. A
 * whole number becomes a number; anything else is left for the job contract to name.
 * @throws CliError when the value has no `/` or an empty side
 */
export function parseDedupeFlag(
  flag: '--throttle' | '--debounce',
  text: string,
): { key: string; ms: number | string } {
  const slash = text.lastIndexOf('/');
  const key = text.slice(0, slash);
  const ms = text.slice(slash + 1);
  if (slash < 0 || key === '' || ms === '') {
    const unit = flag === '--throttle' ? 'WINDOW_MS' : 'DELAY_MS';
    throw new CliError(`${flag} takes KEY/${unit}, such as customer-42/60000 (got ${JSON.stringify(text)})`);
  }
  return { key, ms: /^-?\d+$/.test(ms) ? Number(ms) : ms };
}

/** The line `nudge enqueue` prints for a job it did not create. */
export function existingJobLine(job: EnqueuedJob): string {
  const where = `(${terminalSafe(job.kind)}, queue ${terminalSafe(job.queue)}, ${job.status})`;
  if (job.debounceKey !== null)
    return `job ${job.id} waits under that debounce key ${where}: its payload was replaced and it is due at ${job.runAt.toISOString()}`;
  if (job.throttleKey !== null)
    return `job ${job.id} holds the open throttle window of that key ${where}; nothing enqueued`;
  return `job ${job.id} exists under that idempotency key ${where}; nothing enqueued`;
}

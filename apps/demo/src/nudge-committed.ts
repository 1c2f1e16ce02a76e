import type { NudgeClient } from '@nudge/client';

/** Longest wait for `POST /nudge`, in ms: the producer needs the server right after anyway. */
const NUDGE_TIMEOUT_MS = 10_000;

/**
 * Nudges the server after a commit. A nudge is only a hint, but the producer follows its jobs
 * over the same API next, so a server that cannot be reached ends the run.
 *
 * @param committed - how many jobs the commit wrote, for the message
 * @throws Error naming the URL and saying that the jobs are committed, when the nudge fails
 */
export async function nudgeCommitted(client: NudgeClient, committed: number): Promise<void> {
  const outcome = await client.nudge({ timeoutMs: NUDGE_TIMEOUT_MS });
  if (!outcome.ok) {
    throw new Error(`${outcome.error.message} (the ${committed} jobs are committed: a server will run them)`);
  }
}
